"""Icons are inline SVG: the templates' macro and the scripts' module draw the same shapes, and
no template, stylesheet or script uses an emoji or a symbol glyph as an icon (where no emoji
font is installed, one renders as an empty box)."""

from __future__ import annotations

import ast
import re

from app.config.paths import STATIC_DIR, TEMPLATES_DIR

# Emoji, dingbats, geometric shapes and miscellaneous symbols: 🔒 ✓ ✗ ▶ ▸ ★ ⚠ and the like.
GLYPHS = re.compile("[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")
# Text, not icons: arrows inside sentences the backward walk writes, and the Mac's ⌘ key name.
ALLOWED = {("js/backward-walk.js", "→"), ("js/runnable.js", "⌘"), ("js/share-button.js", "⌘")}


def test_the_macro_and_the_module_draw_the_same_icons() -> None:
    macro = (TEMPLATES_DIR / "_icons.html").read_text()
    module = (STATIC_DIR / "js" / "icons.js").read_text()
    in_macro = re.search(r"\{% set ICON_PATHS = (\{.*?\}) %\}", macro, re.S)
    in_module = re.search(r"export const ICONS = (\{.*?\});", module, re.S)
    assert in_macro and in_module
    as_python = re.sub(r"^(\s*)([\w-]+):", r'\1"\2":', in_module.group(1), flags=re.M)
    assert ast.literal_eval(in_macro.group(1)) == ast.literal_eval(as_python)


def test_no_glyph_is_used_as_an_icon() -> None:
    files = [*TEMPLATES_DIR.rglob("*.html")]
    files += [
        p for p in STATIC_DIR.rglob("*") if p.suffix in (".js", ".css") and "vendor" not in p.parts
    ]
    found = {
        (
            str(path.relative_to(STATIC_DIR if path.is_relative_to(STATIC_DIR) else TEMPLATES_DIR)),
            glyph,
        )
        for path in files
        for glyph in GLYPHS.findall(path.read_text())
    }
    assert found <= ALLOWED, sorted(found - ALLOWED)
