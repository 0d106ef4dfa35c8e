// The experimenter's page: name a participant (id and condition) to get their link, and follow
// every sitting's progress and the outcome of each task. Refreshes every two seconds.
"use strict";

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function row(s) {
  const tr = document.createElement("tr");
  tr.dataset.participant = s.participant;
  const progress = s.finished ? "done" : `${s.task_index + 1} of ${s.tasks_total} (${s.task})`;
  const outcomes = s.outcomes.map((o) => `${o.task} ${o.success ? "pass" : "fail"}`).join(", ");
  const link = document.createElement("a");
  link.href = s.link;
  link.textContent = "open";
  link.target = "_blank";
  const linkCell = document.createElement("td");
  linkCell.append(link);
  tr.append(cell(s.participant), cell(s.condition), cell(s.run_id), cell(s.error ? `stopped: ${s.error}` : progress),
            cell(outcomes), linkCell);
  return tr;
}

async function refresh() {
  try {
    const response = await fetch("/api/sessions");
    const data = await response.json();
    document.querySelector("#sessions tbody").replaceChildren(...data.sessions.map(row));
  } finally {
    setTimeout(refresh, 2000);
  }
}

async function add(event) {
  event.preventDefault();
  const message = document.getElementById("message");
  const body = {participant: document.getElementById("participant").value,
                condition: document.getElementById("condition").value};
  const response = await fetch("/api/sessions", {method: "POST", headers: {"Content-Type": "application/json"},
                                                 body: JSON.stringify(body)});
  const data = await response.json();
  message.textContent = response.ok ? `link for ${body.participant}: ${location.origin}${data.link}` : data.error;
  document.getElementById("participant").value = "";
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("add").addEventListener("submit", add);
  refresh();
});
