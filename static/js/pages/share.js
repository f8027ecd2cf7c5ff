// Entry script of a share's page (/s/ID): its code runs as the visitor's own run (nothing is
// saved), and once the page is shown it tells the server, which keeps a share that people look
// at from expiring (the GET of the page itself writes nothing). Its author may delete it here.
import {mountRunnable} from "../runnable.js";
import {startUp} from "../ready.js";
import {apiFetch, networkMessage, postJson} from "../util.js";

function offerDeletion(article, url) {
  const owner = article.querySelector(".share-owner");
  const button = owner && owner.querySelector(".btn-delete-share");
  if (!button) return;
  const status = owner.querySelector(".share-owner-status");
  button.addEventListener("click", async () => {
    if (!window.confirm("Delete this share? The link will stop working for everyone.")) return;
    button.setAttribute("aria-busy", "true");
    const response = await apiFetch(url, {method: "DELETE"});
    button.removeAttribute("aria-busy");
    if (response.ok) {
      button.remove();
      status.textContent = "Deleted: this link now answers “not found”. The code above stays only in this page.";
    } else {
      status.textContent = networkMessage(response, "Deleting the share");
    }
  });
}

const article = document.querySelector("article.shared[data-share]");
if (article) {
  const url = `/api/shares/${encodeURIComponent(article.dataset.share)}`;
  for (const section of article.querySelectorAll("section.runnable")) {
    mountRunnable(section, {lesson: null, step: null, save: false, label: "Shared code"});
  }
  offerDeletion(article, url);
  startUp(postJson(`${url}/views`, {}, {keepalive: true}));
}
