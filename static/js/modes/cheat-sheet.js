// The cheat sheet: a Print button (the print stylesheet in modes.css does the rest).
export function start() {
  const button = document.querySelector(".sheet-print");
  if (button) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
}
