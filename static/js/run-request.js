// The run request of a runnable cell: POST /api/run through postJson (a 503 or 429 with Retry-After
// is waited out with a visible countdown and a Cancel button, then sent again), and the
// sentence for a run that did not happen.
//
//   requestRun({code, lesson, step}, waitHost)  -> apiFetch-style response
//   runFailureText(response, stale)             -> [text, kind]

import {ensureStop, networkMessage, plural, postJson} from "./util.js";

const RUN_CLIENT_TIMEOUT_MS = 90_000; // the sandbox's own limit is far lower

export function requestRun({code, lesson = null, step = null}, waitHost = null) {
  const body = {code};
  if (lesson) body.lesson = lesson;
  if (step !== null && Number.isInteger(step)) body.step = step;
  return postJson("/api/run", body, {timeoutMs: RUN_CLIENT_TIMEOUT_MS, waitHost});
}

function retryAfterSeconds(headers) {
  const raw = headers && headers.get("Retry-After");
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(1, Math.round(seconds));
  const date = Date.parse(raw);
  if (Number.isFinite(date)) return Math.max(1, Math.round((date - Date.now()) / 1000));
  return null;
}

export function runFailureText(response, stale) {
  const staleNote = stale ? " The output below is from the previous run." : "";
  const detail = response.detail ? `${ensureStop(response.detail)} ` : "";
  if (response.cancelled) return [`The run was cancelled.${staleNote}`, "error"];
  if (response.status === 413) {
    return [`This code is too long to run. ${detail}Shorten it and run again.${staleNote}`, "error"];
  }
  if (response.status === 429) {
    const seconds = retryAfterSeconds(response.headers);
    const wait = seconds ? `Try again in ${plural(seconds, "second")}.` : "Try again in a moment.";
    return [`The code did not run: your earlier runs are still going or waiting. ${detail}${wait}${staleNote}`, "busy"];
  }
  if (response.status === 503) {
    const seconds = retryAfterSeconds(response.headers);
    const wait = seconds ? `Try again in ${plural(seconds, "second")}.` : "Try again in a moment.";
    return [`The code did not run: the server is busy with other people's code. ${detail}${wait}${staleNote}`, "busy"];
  }
  if (response.status === 422 || response.status === 400) {
    return [`The server could not read this request. ${ensureStop(response.detail || "Invalid request")}${staleNote}`, "error"];
  }
  return [`${networkMessage(response, "Running the code")}${staleNote}`, "error"];
}
