// Touch: a finger on the canvas goes to the app (attn_hook_touch), not to GLFW, which would take it for a mouse.
//
// [Touch] A finger on the canvas is the app's (src/ui/frame/touch.hpp: a tap clicks, a
// swipe scrolls the panel under it and coasts, two fingers pinch a map): each
// touch goes to attn_hook_touch in the canvas's device pixels. Emscripten's
// GLFW would take a touch for a mouse button without a position (its touchmove
// carries none), so its listeners never see one, and the browser makes no
// mouse events of it (preventDefault). Registered on the window, capturing:
// before the canvas's own listeners.

const touchPhase = { touchstart: 0, touchmove: 1, touchend: 2, touchcancel: 3 };

function forwardTouch(e) {
  const canvas = document.getElementById('canvas');
  if (e.target !== canvas) return;
  e.stopPropagation();
  if (e.cancelable) e.preventDefault();
  const M = window.Module;
  if (!M || !M._attn_hook_touch || !window.attn) return;
  const box = canvas.getBoundingClientRect();
  if (!box.width || !box.height) return;
  const kx = canvas.width / box.width, ky = canvas.height / box.height;
  for (const t of e.changedTouches)
    M._attn_hook_touch(touchPhase[e.type], t.identifier, (t.clientX - box.left) * kx, (t.clientY - box.top) * ky, e.timeStamp / 1000);
  if (e.type === 'touchstart' && document.activeElement !== canvas) canvas.focus({ preventScroll: true });
}

export function forwardTouches() {
  for (const type of Object.keys(touchPhase)) window.addEventListener(type, forwardTouch, { capture: true, passive: false });
}
