// The gradlab code editor: a small CodeMirror 6 setup for Python snippets.
//
// Built by `npm run build` into static/vendor/codemirror.js (an IIFE), which
// sets `window.GradlabEditor = {create}`. Pages never import CodeMirror
// directly, so the bundle's surface stays this one function.

import {Compartment, EditorState, Prec, RangeSet, StateEffect, StateField} from "@codemirror/state";
import {
  Decoration,
  EditorView,
  GutterMarker,
  drawSelection,
  gutterLineClass,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import {defaultKeymap, history, historyKeymap, indentWithTab} from "@codemirror/commands";
import {
  HighlightStyle,
  LanguageSupport,
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
// pythonLanguage rather than python(): the latter adds autocompletion and a
// list of builtins we do not use, roughly doubling the bundle.
import {pythonLanguage} from "@codemirror/lang-python";
import {tags as t} from "@lezer/highlight";

const ERROR_LINE_CLASS = "cm-error-line";

// ---- Error line --------------------------------------------------------

const setErrorLine = StateEffect.define();
const errorLineDecoration = Decoration.line({class: ERROR_LINE_CLASS});

class ErrorGutterMarker extends GutterMarker {
  constructor() {
    super();
    this.elementClass = "cm-error-gutter";
  }
}
const errorGutterMarker = new ErrorGutterMarker();

// Holds the start position of the highlighted line, or null. An edit clears
// it: the error belongs to the code that ran, not to the code being typed.
const errorLineField = StateField.define({
  create: () => null,
  update(pos, tr) {
    for (const effect of tr.effects) {
      if (effect.is(setErrorLine)) return effect.value;
    }
    return tr.docChanged ? null : pos;
  },
  provide: (field) => [
    EditorView.decorations.from(field, (pos) =>
      pos === null ? Decoration.none : Decoration.set([errorLineDecoration.range(pos)])),
    gutterLineClass.from(field, (pos) =>
      pos === null ? RangeSet.empty : RangeSet.of([errorGutterMarker.range(pos)])),
  ],
});

// ---- Themes ------------------------------------------------------------

// Palettes chosen for at least 4.5:1 contrast against their background.
const palettes = {
  light: {
    background: "#ffffff", foreground: "#1f2328", gutterBg: "#f6f8fa", gutterFg: "#57606a",
    activeLine: "#f3f6fa", selection: "#b6d7ff", cursor: "#1f2328", bracket: "#d7e8c8",
    errorBg: "#ffebe9", errorBar: "#cf222e", border: "#d0d7de", focus: "#0969da",
    keyword: "#cf222e", string: "#0a3069", number: "#0550ae", comment: "#57606a",
    func: "#8250df", className: "#953800", property: "#0550ae", operator: "#1f2328",
  },
  dark: {
    background: "#0d1117", foreground: "#e6edf3", gutterBg: "#161b22", gutterFg: "#8b949e",
    activeLine: "#161b22", selection: "#264f78", cursor: "#e6edf3", bracket: "#2e4a2e",
    errorBg: "#3d1518", errorBar: "#ff7b72", border: "#30363d", focus: "#58a6ff",
    keyword: "#ff7b72", string: "#a5d6ff", number: "#79c0ff", comment: "#8b949e",
    func: "#d2a8ff", className: "#ffa657", property: "#79c0ff", operator: "#e6edf3",
  },
};

function buildTheme(p, dark) {
  const theme = EditorView.theme({
    "&": {
      color: p.foreground,
      backgroundColor: p.background,
      // Border, focus ring and radius follow the page's interactive.css when present.
      border: `1px solid var(--gl-border, ${p.border})`,
      borderRadius: "var(--gl-radius, 6px)",
      fontSize: "0.95rem",
    },
    "&.cm-focused": {outline: `2px solid var(--gl-focus, ${p.focus})`, outlineOffset: "1px"},
    ".cm-scroller": {
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace",
      lineHeight: "1.5",
    },
    ".cm-content": {caretColor: p.cursor, padding: "6px 0"},
    ".cm-cursor, .cm-dropCursor": {borderLeftColor: p.cursor},
    "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
      {backgroundColor: p.selection},
    ".cm-gutters": {
      backgroundColor: p.gutterBg,
      color: p.gutterFg,
      border: "none",
      borderRight: `1px solid ${p.border}`,
      borderRadius: "var(--gl-radius, 6px) 0 0 var(--gl-radius, 6px)",
    },
    ".cm-activeLine": {backgroundColor: p.activeLine},
    ".cm-activeLineGutter": {backgroundColor: p.activeLine, color: p.foreground},
    "&.cm-focused .cm-matchingBracket": {backgroundColor: p.bracket, outline: `1px solid ${p.gutterFg}`},
    "&.cm-focused .cm-nonmatchingBracket": {backgroundColor: p.errorBg, outline: `1px solid ${p.errorBar}`},
    [`.${ERROR_LINE_CLASS}, .${ERROR_LINE_CLASS}.cm-activeLine`]: {
      backgroundColor: p.errorBg,
      boxShadow: `inset 3px 0 0 ${p.errorBar}`,
    },
    ".cm-error-gutter": {backgroundColor: p.errorBg, color: p.errorBar, fontWeight: "700"},
  }, {dark});

  const highlight = HighlightStyle.define([
    {tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: p.keyword},
    {tag: [t.string, t.special(t.string), t.regexp], color: p.string},
    {tag: [t.number, t.bool, t.null, t.atom], color: p.number},
    {tag: [t.comment, t.lineComment], color: p.comment, fontStyle: "italic"},
    {tag: [t.function(t.variableName), t.function(t.definition(t.variableName))], color: p.func},
    {tag: [t.className, t.definition(t.className)], color: p.className},
    {tag: [t.propertyName, t.function(t.propertyName)], color: p.property},
    {tag: [t.self, t.special(t.variableName)], color: p.number},
    {tag: [t.operator, t.punctuation, t.bracket], color: p.operator},
    {tag: t.invalid, color: p.errorBar},
  ], {themeType: dark ? "dark" : "light"});

  return [theme, syntaxHighlighting(highlight)];
}

const lightTheme = buildTheme(palettes.light, false);
const darkTheme = buildTheme(palettes.dark, true);
const darkQuery = typeof window.matchMedia === "function"
  ? window.matchMedia("(prefers-color-scheme: dark)")
  : null;
const currentTheme = () => (darkQuery && darkQuery.matches ? darkTheme : lightTheme);

// ---- Public API --------------------------------------------------------

/**
 * Create an editor inside `parent`.
 * options: {doc, label, onRun(code), onChange(code)}
 * Returns {getCode(), setCode(text), highlightLine(n|null), focus(), destroy(), view}.
 */
function create(parent, options = {}) {
  const {doc = "", label = "Code editor", onRun = null, onChange = null} = options;
  const themeSlot = new Compartment();

  const runKeys = ["Mod-Enter", "Ctrl-Enter"].map((key) => ({
    key,
    preventDefault: true,
    run(view) {
      if (onRun) onRun(view.state.doc.toString());
      return true;
    },
  }));

  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightActiveLine(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    new LanguageSupport(pythonLanguage),
    indentUnit.of("    "),
    EditorState.tabSize.of(4),
    // Highest precedence so Mod-Enter runs instead of inserting a blank line.
    Prec.highest(keymap.of(runKeys)),
    // Tab indents; Escape then Tab (built into CodeMirror) moves focus on.
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    // tabindex: the editable content is what the keyboard reaches; saying so makes the
    // scroller around it (which scrolls sideways on a narrow screen) a region with focusable
    // content, so tools and browsers agree it is reachable.
    EditorView.contentAttributes.of({"aria-label": label, tabindex: "0"}),
    errorLineField,
    themeSlot.of(currentTheme()),
  ];
  // CodeMirror injects its styles in a <style> element; the page's Content-Security-Policy
  // admits it only with the nonce the server put in <meta name="csp-nonce">.
  const nonce = document.querySelector('meta[name="csp-nonce"]')?.content;
  if (nonce) extensions.push(EditorView.cspNonce.of(nonce));
  if (onChange) {
    extensions.push(EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }));
  }

  const view = new EditorView({state: EditorState.create({doc, extensions}), parent});

  const followScheme = () => view.dispatch({effects: themeSlot.reconfigure(currentTheme())});
  if (darkQuery) darkQuery.addEventListener("change", followScheme);

  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode(text) {
      view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: String(text)}});
    },
    /** Mark 1-based line `n` with .cm-error-line; null (or a line not in the doc) clears. */
    highlightLine(n) {
      const lines = view.state.doc.lines;
      if (n === null || n === undefined || !Number.isInteger(n) || n < 1 || n > lines) {
        view.dispatch({effects: setErrorLine.of(null)});
        return false;
      }
      const pos = view.state.doc.line(n).from;
      view.dispatch({effects: [setErrorLine.of(pos), EditorView.scrollIntoView(pos, {y: "nearest"})]});
      return true;
    },
    focus: () => view.focus(),
    destroy() {
      if (darkQuery) darkQuery.removeEventListener("change", followScheme);
      view.destroy();
    },
  };
}

window.GradlabEditor = Object.freeze({create});
