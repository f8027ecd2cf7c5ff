"""What a run may read: installed packages, but not gradlab's own package installed among them."""

from __future__ import annotations

import os
from pathlib import Path

from app.sandbox.isolation import _without


def _venv(root: Path) -> Path:
    """A virtualenv's shape: lib64 links to lib, gradlab installed beside torch."""
    site = root / "lib" / "python3.11" / "site-packages"
    for folder in ("app/bundled_lessons", "torch", "numpy"):
        (site / folder).mkdir(parents=True)
    (site / "typing_extensions.py").write_text("")
    (root / "bin").mkdir()
    (root / "lib64").symlink_to("lib")
    return site


def test_the_package_is_cut_out_of_every_folder_that_holds_it(tmp_path: Path) -> None:
    site = _venv(tmp_path)
    hidden = str(site / "app")
    granted = set().union(
        *(_without(str(path), hidden, set()) for path in (tmp_path, site, tmp_path / "lib64"))
    )
    real = {os.path.realpath(path) for path in granted}
    assert {str(site / name) for name in ("torch", "numpy", "typing_extensions.py")} <= real
    assert str(tmp_path / "bin") in real
    # Nothing granted holds the package (a rule grants a whole tree, links followed).
    assert not [path for path in real if hidden.startswith(path + "/") or path.startswith(hidden)]


def test_a_folder_without_the_package_is_granted_whole(tmp_path: Path) -> None:
    site = _venv(tmp_path)
    assert _without(str(site / "torch"), str(site / "app"), set()) == {str(site / "torch")}
