// The participant's page: hold arrow keys (keyboard mode) or type scripts (script mode).
// Each request moves the world by one answer and returns the next frame; the page asks only while an
// arena is running and the tab is visible, so a hidden or closed tab pauses the world.
"use strict";

const KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "w", "a", "s", "d", "W", "A", "S", "D"]);
const GRID_KEYS = new Set(["ArrowUp", "ArrowLeft", "ArrowRight", " ", "t", "T", "PageUp", "p", "P", "PageDown", "d", "D",
                           "Enter"]);
const held = new Set();
let token = null;
let state = null;
let running = false;
let shownIndex = -1;

async function api(path, body) {
  const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                      body: JSON.stringify(body || {})});
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function el(id) { return document.getElementById(id); }

function overlay(text) {
  const box = el("overlay");
  box.textContent = text || "";
  box.hidden = !text;
}

function outcomeLine(o) {
  return `${o.task}: ${o.success ? "pass" : "fail"} (${o.end_reason.replace(/_/g, " ")}, reward ${o.reward})`;
}

function render(next) {
  state = next;
  window.playState = next;
  document.body.dataset.taskIndex = String(next.task_index);
  document.body.dataset.finished = String(next.finished);
  el("arena").textContent = next.finished ? "All done - thank you!"
    : `${next.tutorial ? "Tutorial" : "Arena"} ${Math.min(next.task_index + 1, next.tasks_total)} of ${next.tasks_total}`;
  const health = next.health === null ? "" : ` - health ${next.health}`;
  el("numbers").textContent = `step ${next.step} - reward ${next.reward}${health}`;
  if (next.frame) el("frame").src = next.frame;
  const list = el("outcomes");
  list.replaceChildren(...next.outcomes.map((o) => {
    const item = document.createElement("li");
    item.textContent = outcomeLine(o);
    return item;
  }));
  if (next.mode === "script") {
    el("prompt").textContent = next.prompt;
    el("feedback").textContent = next.feedback;
  }
}

function arenaChanged() {
  if (state.finished) {
    running = false;
    overlay("All arenas played. Thank you!");
    return true;
  }
  if (state.task_index !== shownIndex) {
    const last = state.outcomes[state.outcomes.length - 1];
    shownIndex = state.task_index;
    running = false;
    const before = last ? `${outcomeLine(last)}. ` : "";
    if (state.stepping === "realtime") {
      overlay(`${before}Press Space to start ${state.tutorial ? "the tutorial" : "the next arena"}.`);
    } else {
      overlay(before ? `${before}Next arena.` : "");
      setTimeout(() => overlay(""), 1500);
    }
    return true;
  }
  return false;
}

async function tick() {
  if (!running) return;
  const started = performance.now();
  try {
    render(await api("/api/step", {session: token, keys: [...held]}));
  } catch (error) {
    running = false;
    overlay(`${error.message}. Press Space to try again.`);
    return;
  }
  if (arenaChanged()) return;
  setTimeout(tick, Math.max(0, state.step_s * 1000 - (performance.now() - started)));
}

let pressing = false;

async function press(event) {
  // A turn-based world (the gridworld): one key press is one step, one at a time.
  if (pressing || state.finished || event.repeat || !GRID_KEYS.has(event.key)) return;
  event.preventDefault();
  pressing = true;
  try {
    render(await api("/api/step", {session: token, press: event.key}));
    arenaChanged();
  } catch (error) {
    overlay(error.message);
  } finally {
    pressing = false;
  }
}

function onKeyDown(event) {
  if (!state || state.mode !== "keyboard") return;
  if (state.stepping === "turns") {
    press(event);
    return;
  }
  if (KEYS.has(event.key)) {
    held.add(event.key);
    event.preventDefault();
  } else if (event.key === " " && !running && !state.finished) {
    event.preventDefault();
    running = true;
    overlay("");
    tick();
  }
}

function onKeyUp(event) { held.delete(event.key); }

async function sendScript(event) {
  if (event) event.preventDefault();
  const text = el("script").value;
  if (!text.trim() || state.finished) return;
  el("send").disabled = true;
  try {
    render(await api("/api/step", {session: token, script: text}));
    el("script").value = "";
    arenaChanged();
  } catch (error) {
    el("feedback").textContent = error.message;
  } finally {
    el("send").disabled = false;
  }
}

async function start() {
  try {
    const named = new URLSearchParams(location.search).get("session");  // the experimenter's link
    const opened = await api("/api/session", named ? {session: named} : {});
    token = opened.session;
    render(opened);
  } catch (error) {
    overlay(`Cannot start: ${error.message}`);
    return;
  }
  const help = state.mode === "script" ? "help-script" : state.stepping === "turns" ? "help-grid" : "help-keyboard";
  el(help).hidden = false;
  arenaChanged();
  document.addEventListener("keydown", onKeyDown);
  document.addEventListener("keyup", onKeyUp);
  window.addEventListener("blur", () => held.clear());
  document.addEventListener("visibilitychange", () => {
    if (document.hidden && running) {
      running = false;
      held.clear();
      overlay("Paused. Press Space to go on.");
    }
  });
  el("script-form").addEventListener("submit", sendScript);
  el("script").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) sendScript(event);
  });
}

document.addEventListener("DOMContentLoaded", start);
