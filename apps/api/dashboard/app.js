// The operator's dashboard: plain ES modules, no build step. The page holds no data until an
// admin key is given; the key stays in this tab's sessionStorage and every call sends it as a
// Bearer header. Data is polled every POLL_MS while the tab is visible.
import { barChart, lineChart } from './charts.js';

const POLL_MS = 2000;
const KEY = 'switchboard.adminKey';
const $ = (id) => document.getElementById(id);

let timer;

class Unauthorized extends Error {}

async function call(path, init = {}) {
  const res = await fetch(path, {
    ...init,
    headers: { authorization: `Bearer ${sessionStorage.getItem(KEY) ?? ''}`, ...init.headers },
    cache: 'no-store',
  });
  if (res.status === 401 || res.status === 403) throw new Unauthorized((await res.json()).error?.message ?? 'refused');
  return res;
}

async function json(path) {
  const res = await call(path);
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
  return res.json();
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (className) td.className = className;
  return td;
}

function rows(table, items, toCells) {
  const body = $(table).tBodies[0];
  body.replaceChildren(
    ...items.map((item) => {
      const tr = document.createElement('tr');
      tr.append(...toCells(item));
      return tr;
    }),
  );
}

function emptyRow(table, text, columns) {
  const td = cell(text, 'muted');
  td.colSpan = columns;
  const tr = document.createElement('tr');
  tr.append(td);
  $(table).tBodies[0].replaceChildren(tr);
}

function showStatus(status) {
  const counts = status.queues?.inbound ?? {};
  $('queue').replaceChildren(
    ...['waiting', 'active', 'delayed', 'completed', 'failed'].map((name) => {
      const tile = document.createElement('div');
      tile.className = 'tile';
      tile.dataset.counter = name;
      const value = document.createElement('strong');
      value.textContent = String(counts[name] ?? 0);
      tile.append(value, name);
      return tile;
    }),
  );
  rows('channels', status.channels, (c) => {
    const health = c.connected === true ? 'connected' : c.connected === false ? 'failing' : 'unknown';
    const td = cell(health, c.connected === true ? 'health-ok' : c.connected === false ? 'health-down' : 'muted');
    const row = [
      cell(c.name),
      cell(c.type),
      td,
      cell(String(c.messages_in)),
      cell(String(c.messages_out)),
      cell(c.last_error, 'error-text'),
    ];
    row[3].dataset.counter = `in:${c.name}`;
    row[4].dataset.counter = `out:${c.name}`;
    return row;
  });
}

function showActivity(minutes) {
  barChart(
    $('rate-chart'),
    minutes.map((m) => m.completed),
    minutes.map((m) => m.failed),
  );
  lineChart(
    $('latency-chart'),
    minutes.map((m) => m.latency_ms_avg),
  );
  const last = minutes.at(-1);
  $('rate-now').textContent = last ? `(${last.completed} this minute)` : '';
  const latest = minutes.findLast((m) => m.latency_ms_avg !== null);
  $('latency-now').textContent = latest ? `(${latest.latency_ms_avg} ms, p95 ${latest.latency_ms_p95} ms)` : '';
}

async function showUsage(groupBy) {
  const table = `usage-${groupBy}`;
  const res = await call(`/admin/usage?group_by=${groupBy}`);
  if (!res.ok) return emptyRow(table, 'usage unavailable', 4);
  const { data } = await res.json();
  if (!data.length) return emptyRow(table, 'no usage yet', 4);
  rows(table, data, (u) => [
    cell(u[groupBy]),
    cell(String(u.requests)),
    cell(String(u.prompt_tokens + u.completion_tokens)),
    cell(typeof u.cost === 'number' ? `$${u.cost.toFixed(4)}` : ''),
  ]);
}

function showFailed(jobs) {
  if (!jobs.length) return emptyRow('failed', 'no failed jobs', 6);
  rows('failed', jobs, (job) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Retry';
    button.dataset.retry = job.id;
    button.addEventListener('click', () => retry(job.id, button));
    const action = document.createElement('td');
    action.append(button);
    return [cell(job.id), cell(job.hook), cell(job.text), cell(job.error, 'error-text'), cell(job.finished_at), action];
  });
}

async function retry(id, button) {
  button.disabled = true;
  button.textContent = 'Retrying…';
  try {
    const res = await call(`/admin/jobs/${encodeURIComponent(id)}/retry`, { method: 'POST' });
    button.textContent = res.ok ? 'Queued' : ((await res.json()).error?.message ?? `failed (${res.status})`);
  } catch (err) {
    button.textContent = err.message;
  }
  await refresh();
}

/** People waiting for a pairing decision (hooks with `access.dm: "pairing"`), each with Approve and Deny. */
function showPairing(requests) {
  if (!requests.length) return emptyRow('pairing', 'no pending requests', 6);
  rows('pairing', requests, (request) => {
    const action = document.createElement('td');
    for (const decision of ['approve', 'deny']) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = decision === 'approve' ? 'Approve' : 'Deny';
      button.dataset[decision] = request.code;
      button.addEventListener('click', () => decide(request.code, decision, action));
      action.append(button);
    }
    const age = request.age_seconds < 120 ? `${request.age_seconds} s` : `${Math.floor(request.age_seconds / 60)} min`;
    return [cell(request.hook), cell(request.user), cell(request.name ?? ''), cell(request.code), cell(age), action];
  });
}

async function decide(code, decision, action) {
  for (const button of action.querySelectorAll('button')) button.disabled = true;
  try {
    const res = await call(`/admin/pairing/${encodeURIComponent(code)}/${decision}`, { method: 'POST' });
    if (!res.ok) action.textContent = (await res.json()).error?.message ?? `failed (${res.status})`;
  } catch (err) {
    action.textContent = err.message;
  }
  await refresh();
}

async function refresh() {
  clearTimeout(timer);
  try {
    const [status, activity, failed, pairing] = await Promise.all([
      json('/admin/status'),
      json('/admin/activity?minutes=15'),
      json('/admin/jobs?state=failed&limit=10'),
      json('/admin/pairing'),
    ]);
    showStatus(status);
    showActivity(activity.data);
    showFailed(failed.data);
    showPairing(pairing.data);
    await Promise.all([showUsage('key'), showUsage('model')]);
    $('state').textContent = `updated ${new Date().toLocaleTimeString()}`;
    $('state').className = 'muted';
  } catch (err) {
    if (err instanceof Unauthorized) return signOut(err.message);
    $('state').textContent = `not updated: ${err.message}`;
    $('state').className = 'error';
  }
  if (!document.hidden) timer = setTimeout(refresh, POLL_MS);
}

function signOut(reason = '') {
  clearTimeout(timer);
  sessionStorage.removeItem(KEY);
  $('board').hidden = true;
  $('sign-out').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = reason;
  $('state').textContent = 'not signed in';
}

function signIn() {
  $('login').hidden = true;
  $('board').hidden = false;
  $('sign-out').hidden = false;
  refresh();
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY, $('admin-key').value.trim());
  $('admin-key').value = '';
  signIn();
});
$('sign-out').addEventListener('click', () => signOut());
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && sessionStorage.getItem(KEY) !== null) refresh();
});

// A key from earlier in this tab is used at once; without one, a probe finds out whether the
// data routes are open (no admin keys configured, a local setup) before asking for a key.
if (sessionStorage.getItem(KEY) !== null) signIn();
else {
  fetch('/admin/status', { method: 'HEAD', cache: 'no-store' }).then(
    (res) => (res.ok ? signIn() : signOut()),
    () => signOut(),
  );
}
