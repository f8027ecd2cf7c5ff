"""The reference runs of tests/sandbox/plain.py do what a fresh `python snippet.py` does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.sandbox.plain import ENV, plain_python

CASES = {
    "prints": "import sys\nprint('out', 1.5)\nprint('err', file=sys.stderr)\n",
    "raises": "print('before')\nx = {}['missing']\n",
    "exits with a number": "import sys\nprint('bye')\nsys.exit(3)\n",
    "exits with text": "import sys\nsys.exit('stopped here')\n",
    "a syntax error": "print('never'\n",
    "reads its own name and folder": (
        "import os, sys\nprint(__name__, os.path.basename(__file__), sys.argv[0])\n"
        "print(os.getcwd() == sys.path[0] == os.path.dirname(os.path.abspath(__file__)))\n"
    ),
    "torch": textwrap.dedent(
        """\
        import torch
        w = torch.tensor([2.0], requires_grad=True)
        (w * w).sum().backward()
        print(w.grad)
        """
    ),
}


@pytest.mark.parametrize("code", list(CASES.values()), ids=list(CASES))
def test_a_reference_run_is_what_python_snippet_py_does(code: str, tmp_path: Path) -> None:
    fresh_folder, forked_folder = tmp_path / "fresh", tmp_path / "forked"
    fresh_folder.mkdir()
    forked_folder.mkdir()
    (fresh_folder / "snippet.py").write_text(code)
    fresh = subprocess.run(
        [sys.executable, "snippet.py"],
        cwd=fresh_folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    forked = plain_python(code, forked_folder)
    assert (forked.returncode, forked.stdout) == (fresh.returncode, fresh.stdout)
    # Tracebacks name the folder the snippet ran in; the rest is the same text.
    assert forked.stderr.replace(str(forked_folder), "F") == fresh.stderr.replace(
        str(fresh_folder), "F"
    )


def test_snippets_cannot_see_each_other(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    assert plain_python("import torch\ntorch.seen = 1\nleft = 2\n", first).returncode == 0
    later = plain_python("import torch\nprint(hasattr(torch, 'seen'), 'left' in dir())\n", second)
    assert later.stdout == "False False\n"
