"""Markdown and code to HTML, for the templates. Pure functions, cached: lessons never change
while the server runs."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

# "js-default" escapes raw HTML in lesson text: lessons are content, not code.
_markdown = MarkdownIt("js-default", {"typographer": True}).enable("table")
_formatter = HtmlFormatter(nowrap=True)
_lexer = PythonLexer()


@lru_cache(maxsize=4096)
def markdown(text: str | None) -> Markup:
    """Block Markdown (paragraphs, lists, code) to HTML."""
    return Markup(_markdown.render(text or ""))  # noqa: S704 - markdown-it escapes raw HTML


@lru_cache(maxsize=4096)
def markdown_inline(text: str | None) -> Markup:
    """One line of Markdown (inline code, emphasis) without a surrounding paragraph."""
    return Markup(_markdown.renderInline(text or ""))  # noqa: S704


@lru_cache(maxsize=4096)
def plain_text(text: str | None) -> str:
    """Markdown as the plain text a reader sees (for a CSV cell): code, emphasis and links
    keep their words and lose their marks; blocks are joined by a space."""
    words: list[str] = []
    for block in _markdown.parse(text or ""):
        if block.type == "fence" or block.type == "code_block":
            words.append(block.content.strip())
        for token in block.children or ():
            if token.type in ("text", "code_inline", "html_inline"):
                words.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                words.append(" ")
        if block.type in ("paragraph_close", "heading_close", "list_item_close"):
            words.append(" ")
    return " ".join("".join(words).split())


@lru_cache(maxsize=1024)
def python_code(code: str) -> Markup:
    """Syntax-highlighted Python as the inner HTML of a <pre><code>."""
    return Markup(highlight(code, _lexer, _formatter))  # noqa: S704 - Pygments escapes the source


def pygments_css() -> str:
    """Token colours for light and dark themes, each at least 4.5:1 (WCAG AA) on the site's
    code background, which the site's own CSS sets (the styles' backgrounds are dropped)."""
    light: str = HtmlFormatter(style="xcode").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    dark: str = HtmlFormatter(style="one-dark").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    light, dark = (_without_backgrounds(css) for css in (light, dark))
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def _without_backgrounds(css: str) -> str:
    return "\n".join(
        line for line in css.splitlines() if not line.startswith(".highlight { background")
    )
