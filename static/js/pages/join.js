// The join page: send the display name, then say where to go next.

import {el, networkMessage, postJson} from "../util.js";

const form = document.querySelector("form[data-join]");
if (form) {
  const status = form.querySelector(".join-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    const name = form.elements.display_name.value;
    const response = await postJson(form.dataset.join, {display_name: name});
    button.disabled = false;
    if (!response.ok || !response.data) {
      status.textContent = networkMessage(response, "Joining");
      return;
    }
    status.replaceChildren(
      `You are in “${response.data.name}” as ${response.data.display_name}. `,
      el("a", {href: "/"}, "Start learning"),
    );
  });
}
