// The playground (/playground): one runnable cell, nothing saved.
//
//   initPlayground(root = document)  mounts the playground's runnable cell(s); returns the controllers
//
// The contract names it <section class="runnable playground">; a runnable
// inside a .playground wrapper is accepted too.

import {mountRunnable} from "./runnable.js";

export function initPlayground(root = document) {
  const sections = root.querySelectorAll("section.runnable.playground, .playground section.runnable");
  return [...sections].map((section) =>
    mountRunnable(section, {lesson: null, step: null, save: false}));
}

