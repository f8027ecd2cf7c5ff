// Entry script of a share's page (/s/ID): its code runs as the visitor's own run (nothing is
// saved), and once the page is shown it tells the server, which keeps a share that people look
// at from expiring (the GET of the page itself writes nothing).
import {mountRunnable} from "../runnable.js";
import {postJson} from "../util.js";

const article = document.querySelector("article.shared[data-share]");
if (article) {
  for (const section of article.querySelectorAll("section.runnable")) {
    mountRunnable(section, {lesson: null, step: null, save: false, label: "Shared code"});
  }
  postJson(`/api/shares/${encodeURIComponent(article.dataset.share)}/views`, {}, {keepalive: true});
}
