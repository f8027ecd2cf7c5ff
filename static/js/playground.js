// The playground (/playground): one runnable cell, nothing saved.
//
//   initPlayground(root = document)  mounts the playground's runnable cell(s), each with the
//                                    gradient doctor's button (doctor.js); returns the controllers
//
// The contract names it <section class="runnable playground">; a runnable
// inside a .playground wrapper is accepted too.

import {mountDoctor} from "./doctor.js";
import {mountRunnable} from "./runnable.js";

export function initPlayground(root = document) {
  const sections = root.querySelectorAll("section.runnable.playground, .playground section.runnable");
  return [...sections].map((section) => {
    const controller = mountRunnable(section, {lesson: null, step: null, save: false});
    // The gradient doctor's "Check my gradients" beside Run (docs/doctor.md).
    if (section.dataset.readonly !== "true") mountDoctor(controller);
    return controller;
  });
}

