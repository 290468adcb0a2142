"""tokenlab.plugins: the plugins the module finds beside itself."""

from pathlib import Path

import tokenlab


def test_the_built_in_plugins_are_found_without_a_search_path():
    found = {p["name"]: p for p in tokenlab.plugins()}
    assert {"bpe", "character", "unigram", "word", "wordpiece"} <= set(found)
    for plugin in found.values():
        assert Path(plugin["file"]).is_file()
        assert plugin["version"] and plugin["description"]
        assert set(plugin["capabilities"]) <= {"sampling", "nbest", "trace"}


def test_capabilities_are_listed_as_the_cli_lists_them():
    found = {p["name"]: p["capabilities"] for p in tokenlab.plugins()}
    assert found["unigram"] == ["sampling", "nbest", "trace"]
    assert "sampling" in found["bpe"]


def test_an_extra_directory_that_does_not_exist_changes_nothing(tmp_path):
    names = [p["name"] for p in tokenlab.plugins()]
    assert [p["name"] for p in tokenlab.plugins([tmp_path / "none"])] == names


def test_version():
    assert tokenlab.__version__.count(".") == 2
