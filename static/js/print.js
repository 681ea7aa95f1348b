// Print buttons (data-print): a listener from our own file, as the Content-Security-Policy allows no inline script.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-print]");
  if (button) window.print();
});
