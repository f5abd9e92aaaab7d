"""Every folder has one home (react_core.base.paths) and one override each; without overrides they are the user's."""

from __future__ import annotations

from pathlib import Path

from react_core.base import paths


def test_each_location_follows_its_own_variable(monkeypatch, tmp_path):
    overrides = {
        "REACT_HISTORY_DB": (paths.history_db, tmp_path / "h.sqlite"),
        "REACT_PRESETS_DIR": (paths.presets_dir, tmp_path / "presets"),
        "REACT_PACK": (paths.pack_file, tmp_path / "pack.sqlite"),
        "REACT_MODEL_CACHE": (paths.model_cache_dir, tmp_path / "models"),
        "REACT_SHARED_DATA": (paths.shared_data_dir, tmp_path / "shared"),
    }
    for var, (where, expected) in overrides.items():
        monkeypatch.setenv(var, str(expected))
        assert where() == expected, var


def test_the_data_and_cache_folders_hold_what_has_no_override_of_its_own(monkeypatch, tmp_path):
    for var in ("REACT_HISTORY_DB", "REACT_PRESETS_DIR", "REACT_PACK", "REACT_MODEL_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REACT_CACHE_DIR", str(tmp_path / "cache"))
    assert paths.history_db() == tmp_path / "data" / "history.sqlite"
    assert paths.presets_dir() == tmp_path / "data" / "presets"
    assert paths.evaluations_dir() == tmp_path / "data" / "evaluations"
    assert paths.pack_file() == tmp_path / "cache" / "hotpotqa-pack.sqlite"
    assert paths.model_cache_dir() == tmp_path / "cache" / "models"


def test_without_overrides_the_folders_are_the_platform_user_folders(monkeypatch):
    for var in ("REACT_DATA_DIR", "REACT_CACHE_DIR", "REACT_HISTORY_DB", "REACT_PACK", "REACT_SHARED_DATA"):
        monkeypatch.delenv(var, raising=False)
    assert paths.data_dir().name == "react-lab" and paths.cache_dir().name == "react-lab"
    assert paths.data_dir() != paths.cache_dir()
    assert paths.history_db().parent == paths.data_dir() and paths.pack_file().parent == paths.cache_dir()
    assert paths.shared_data_dir() == Path(paths.PROJECT_ROOT).parent / "shared" / "data"


def test_secrets_files_are_streamlits_unless_replaced(monkeypatch, tmp_path):
    monkeypatch.delenv("REACT_SECRETS_PATH", raising=False)
    assert [p.name for p in paths.secrets_files()] == ["secrets.toml"] * len(paths.secrets_files())
    monkeypatch.setenv("REACT_SECRETS_PATH", "")
    assert paths.secrets_files() == []
    monkeypatch.setenv("REACT_SECRETS_PATH", f"{tmp_path / 'a.toml'}:{tmp_path / 'b.toml'}")
    assert paths.secrets_files() == [tmp_path / "a.toml", tmp_path / "b.toml"]


def test_each_owner_has_an_evaluations_folder_of_its_own_that_no_id_can_steer(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    local = paths.evaluations_dir()
    assert paths.evaluations_dir("") == local == tmp_path / "data" / "evaluations"  # local mode's stays where it was
    owners = ["session:1", "session:2", "oidc:https://id.example#alice", "../../etc", "/", "evaluations"]
    folders = [paths.evaluations_dir(o) for o in owners]
    assert len(set(folders)) == len(owners)
    for folder in folders:
        assert folder.parent == tmp_path / "data" / "evaluations-by-owner" and len(folder.name) == 64
        assert local not in folder.parents and folder != local
