// The mode switcher's memory: a mode page tells the server, once shown, that this learner
// used this mode for this lesson (a page view itself never writes).

import {startUp} from "../ready.js";
import {postJson} from "../util.js";

export function rememberMode(path = location.pathname) {
  const match = /^\/lessons\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (!match) return null;
  return postJson(`/api/lessons/${match[1]}/mode`, {mode: decodeURIComponent(match[2])}, {keepalive: true});
}

startUp(rememberMode());
