// The dispatch board's script (GET /board, src/pages/board.ts), served as a static asset of this server under a
// hash of its bytes (src/pages/assets.ts). Plain browser JavaScript, no build step, no framework; every text from
// the API goes into the page as textContent (never as HTML).
//
// - The key is kept in sessionStorage (this tab only), sent as Authorization on POST /graphql and as the
//   connectionParams of the WebSocket; never in the URL. The day is in the URL (?day=YYYY-MM-DD).
// - The day is the browser's local day: [local midnight, next local midnight), read with dispatchBoard.
// - Columns: "Unassigned", then every user seen assigned to a job in this tab (the API has no user list), by name.
//   Rows: hours. A job with several assignees has a card in each of their columns.
// - Live: the jobEvents subscription (graphql-ws, protocol graphql-transport-ws) filtered to the day. After a lost
//   connection it subscribes again with afterSeq = the last seq seen, so no change is missed; when the server
//   answers subscription.resync_required (or no event was seen yet) the board is read again instead.
// - Every job state (from the board, an event, a mutation) is compared with the one shown by (updatedAt, the
//   lock version of its ETag): an older one never replaces a newer one, whatever order they arrive in.
// - A drop (or the Move… dialog) calls updateJob with the card's etag as ifMatch; userErrors are shown on the
//   card and in the banner, and the card is read again.
(function () {
  'use strict';

  var KEY_STORAGE = 'fieldline.board.key';
  var GRAPHQL_PATH = '/graphql';
  var BOARD_LIMIT = 200;
  // The assignments read per job. A move rewrites the whole list (the API takes it as a snapshot), so a job with
  // more than this is not moved from the board (it says so) rather than losing the assignments it did not read.
  var MAX_ASSIGNEES = 10;

  var CARD_FIELDS =
    'fragment BoardJob on Job { id number title status scopeOfWork workDescription etag updatedAt scheduledStart scheduledEnd ' +
    'customer { id organization } site { id siteName city } ' +
    'assignees(first: ' + MAX_ASSIGNEES + ') { nodes { id name } } assignments(first: ' + MAX_ASSIGNEES + ') { pageInfo { hasNextPage } nodes { id userId } } }';
  var BOARD_QUERY = 'query DispatchBoard($from: DateTime!, $to: DateTime!, $limit: Int) { dispatchBoard(from: $from, to: $to, limit: $limit) { hasMore jobs { ...BoardJob } } } ' + CARD_FIELDS;
  var JOB_QUERY = 'query BoardJob($id: ID!) { job(id: $id) { ...BoardJob } } ' + CARD_FIELDS;
  var UPDATE_JOB =
    'mutation BoardMove($id: ID!, $ifMatch: String, $input: UpdateJobInput!) { updateJob(id: $id, ifMatch: $ifMatch, input: $input) { etag job { ...BoardJob } userErrors { code message field } } } ' +
    CARD_FIELDS;
  var JOB_EVENTS =
    'subscription BoardEvents($filter: JobEventFilter, $afterSeq: SafeInt) { jobEvents(filter: $filter, afterSeq: $afterSeq) { seq id topic etag job { ...BoardJob } } } ' +
    CARD_FIELDS;

  var $ = function (id) {
    return document.getElementById(id);
  };

  // ---- state ----
  var key = null;
  var day = null; // 'YYYY-MM-DD'
  var jobs = new Map(); // id -> job shown (scheduledStart within the day)
  var seen = new Map(); // id -> [updatedAt ms, lock version] of the newest state seen (Infinity when deleted)
  var users = new Map(); // user id (string) -> name: every assignee seen in this tab
  var cardErrors = new Map(); // job id -> message of its last refused move
  var saving = new Set(); // job ids being written
  var touched = new Set(); // job ids changed by an event or a write since the board was last read
  var hasMore = false; // whether more jobs start this day than the board read
  var generation = 0; // bumped when the day or the key changes: answers of an older one are dropped
  var live = { client: null, current: null, unsubscribe: null, lastSeq: null, retries: 0, timer: null, reloadTimer: null };
  var dragged = null; // { jobId, fromUserId } while a card is dragged
  var moving = null; // the same for the Move… dialog

  // ---- small helpers ----
  function pad(n) {
    return String(n).padStart(2, '0');
  }
  function dayOf(date) {
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate());
  }
  function parseDay(text) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || '');
    if (!m) return null;
    var date = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return dayOf(date) === text ? date : null;
  }
  function windowOf(text) {
    var start = parseDay(text);
    var end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
    return { from: start, to: end };
  }
  function hhmm(date) {
    return pad(date.getHours()) + ':' + pad(date.getMinutes());
  }
  function inDay(job) {
    if (!job.scheduledStart || !day) return false;
    var w = windowOf(day);
    var start = new Date(job.scheduledStart).getTime();
    return start >= w.from.getTime() && start < w.to.getTime();
  }
  function versionOf(job) {
    var m = /^W\/"(\d+)-(\d+)"$/.exec(job.etag || '');
    return [Date.parse(job.updatedAt) || 0, m ? Number(m[2]) : 0];
  }
  function older(a, b) {
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs)
      Object.keys(attrs).forEach(function (name) {
        var value = attrs[name];
        if (value === null || value === undefined || value === false) return;
        if (name === 'text') node.textContent = value;
        else node.setAttribute(name, value === true ? '' : String(value));
      });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }
  function messageOf(error) {
    if (!error) return 'unknown error';
    if (Array.isArray(error))
      return error
        .map(function (e) {
          return e.message;
        })
        .join('; ');
    if (typeof error.code === 'number') return 'connection closed (' + error.code + (error.reason ? ': ' + error.reason : '') + ')';
    return error.message || String(error);
  }
  function codeOf(errors) {
    for (var i = 0; errors && i < errors.length; i++) if (errors[i] && errors[i].extensions && errors[i].extensions.code) return errors[i].extensions.code;
    return null;
  }

  // ---- banner and live status ----
  function showBanner(text) {
    $('banner-text').textContent = text;
    $('banner').hidden = false;
  }
  function hideBanner() {
    $('banner').hidden = true;
    $('banner-text').textContent = '';
  }
  function setLive(state, text) {
    var node = $('live');
    node.dataset.state = state;
    node.textContent = text;
  }

  // ---- GraphQL over HTTP ----
  function KeyRefused(message) {
    this.message = message;
  }
  async function graphql(query, variables) {
    var response = await fetch(GRAPHQL_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: 'Bearer ' + key },
      body: JSON.stringify({ query: query, variables: variables }),
      credentials: 'omit',
      cache: 'no-store',
    });
    var body = null;
    try {
      body = await response.json();
    } catch (error) {
      throw new Error('The server answered ' + response.status + ' without a GraphQL result.');
    }
    var code = codeOf(body && body.errors) || (body && body.code);
    if (response.status === 401 || (code && /^auth(entication)?\./.test(code))) throw new KeyRefused(messageOf(body.errors) || body.detail || 'The key was refused.');
    if (!body || (!body.data && body.errors)) throw new Error(messageOf(body && body.errors) || body.detail || 'HTTP ' + response.status);
    return body;
  }

  // ---- the board's jobs ----
  /** Takes a job state in unless a newer one was seen; returns whether it was taken. */
  function take(job, options) {
    var version = versionOf(job);
    var known = seen.get(job.id);
    if (known && older(version, known)) return false;
    seen.set(job.id, version);
    if (!(options && options.fromBoard)) touched.add(job.id);
    ((job.assignees && job.assignees.nodes) || []).forEach(function (user) {
      users.set(String(user.id), user.name);
    });
    if (inDay(job)) jobs.set(job.id, job);
    else jobs.delete(job.id);
    return true;
  }
  function drop(id) {
    seen.set(id, [Infinity, Infinity]);
    touched.add(id);
    jobs.delete(id);
  }

  async function loadBoard() {
    var mine = generation;
    var w = windowOf(day);
    touched.clear();
    var result = await graphql(BOARD_QUERY, { from: w.from.toISOString(), to: w.to.toISOString(), limit: BOARD_LIMIT });
    if (mine !== generation) return;
    var board = result.data && result.data.dispatchBoard;
    if (!board) throw new Error(messageOf(result.errors) || 'The board could not be read.');
    var ids = new Set();
    board.jobs.forEach(function (job) {
      ids.add(job.id);
      take(job, { fromBoard: true });
    });
    // A job shown that the board no longer has moved out of the day or was deleted, unless an event or a write
    // that arrived while the board was read put it there (it then stays as that left it).
    Array.from(jobs.keys()).forEach(function (id) {
      if (!ids.has(id) && !touched.has(id)) jobs.delete(id);
    });
    touched.clear();
    hasMore = board.hasMore;
    $('board-section').dataset.loaded = day;
    if (result.errors) showBanner('Some fields could not be read: ' + messageOf(result.errors));
    render();
  }

  async function refreshJob(id) {
    var mine = generation;
    try {
      var result = await graphql(JOB_QUERY, { id: id });
      if (mine !== generation) return;
      var job = result.data && result.data.job;
      if (job) take(job);
      else drop(id);
    } catch (error) {
      if (error instanceof KeyRefused) return keyRefused(error.message);
      showBanner('Could not read the job again: ' + messageOf(error));
    }
    render();
  }

  // ---- moves ----
  function assignmentsAfterMove(job, fromUserId, toUserId) {
    var current = (job.assignments && job.assignments.nodes) || [];
    var kept = current
      .filter(function (a) {
        return String(a.userId) !== fromUserId;
      })
      .map(function (a) {
        return { id: a.id, userId: a.userId };
      });
    var already = current.some(function (a) {
      return String(a.userId) === toUserId;
    });
    if (toUserId !== '' && !already) kept.push({ userId: Number(toUserId) });
    return kept;
  }

  /** Moves a job: to another column (toUserId: a user id, '' for Unassigned) and/or to another start (a Date). */
  async function move(jobId, fromUserId, toUserId, start) {
    var job = jobs.get(jobId);
    if (!job || saving.has(jobId)) return;
    var input = {};
    if (toUserId !== null && toUserId !== fromUserId) {
      if (job.assignments && job.assignments.pageInfo && job.assignments.pageInfo.hasNextPage) {
        showBanner('Job ' + job.number + ' has more than ' + MAX_ASSIGNEES + ' technicians: change its assignments in the API instead.');
        return;
      }
      input.assignments = assignmentsAfterMove(job, fromUserId, toUserId);
    }
    if (start && job.scheduledStart && start.getTime() !== new Date(job.scheduledStart).getTime()) {
      input.scheduledStart = start.toISOString();
      if (job.scheduledEnd) {
        var length = new Date(job.scheduledEnd).getTime() - new Date(job.scheduledStart).getTime();
        input.scheduledEnd = new Date(start.getTime() + length).toISOString();
      }
    }
    if (!Object.keys(input).length) return;
    var mine = generation;
    cardErrors.delete(jobId);
    saving.add(jobId);
    render();
    try {
      var result = await graphql(UPDATE_JOB, { id: jobId, ifMatch: job.etag, input: input });
      if (mine !== generation) return;
      var payload = result.data && result.data.updateJob;
      if (!payload) throw new Error(messageOf(result.errors) || 'The job could not be changed.');
      saving.delete(jobId);
      if (payload.userErrors && payload.userErrors.length) {
        var message = payload.userErrors
          .map(function (e) {
            return e.message;
          })
          .join(' ');
        var stale = payload.userErrors.some(function (e) {
          return e.code === 'precondition.failed';
        });
        var text = stale ? 'Someone else changed this job first; it now shows as it is. ' + message : message;
        cardErrors.set(jobId, text);
        showBanner('Job ' + job.number + ' was not moved: ' + text);
        await refreshJob(jobId);
        return;
      }
      var written = payload.job;
      if (payload.etag) written.etag = payload.etag;
      take(written);
      render();
    } catch (error) {
      saving.delete(jobId);
      if (error instanceof KeyRefused) return keyRefused(error.message);
      cardErrors.set(jobId, messageOf(error));
      showBanner('Job ' + job.number + ' was not moved: ' + messageOf(error));
      render();
    }
  }

  /** The start a drop onto an hour row gives: that hour of the day, the minutes of the job's start kept. */
  function startAtHour(job, hour) {
    var current = new Date(job.scheduledStart);
    var d = parseDay(day);
    return new Date(d.getFullYear(), d.getMonth(), d.getDate(), hour, current.getMinutes());
  }

  // ---- rendering ----
  function columns() {
    var list = Array.from(users.entries()).map(function (entry) {
      return { id: entry[0], name: entry[1] };
    });
    list.sort(function (a, b) {
      return a.name.localeCompare(b.name) || Number(a.id) - Number(b.id);
    });
    return [{ id: '', name: 'Unassigned' }].concat(list);
  }

  function cardOf(job, userId) {
    var start = new Date(job.scheduledStart);
    var time = hhmm(start) + (job.scheduledEnd ? '–' + hhmm(new Date(job.scheduledEnd)) : '');
    var headingId = 'job-' + job.id + '-' + (userId || 'none');
    var description = job.workDescription || job.scopeOfWork || '';
    var place = job.customer ? job.customer.organization : job.site ? job.site.siteName : '';
    var error = cardErrors.get(job.id);
    var card = el(
      'article',
      {
        class: 'card',
        draggable: 'true',
        tabindex: '0',
        'data-job-id': job.id,
        'data-etag': job.etag,
        'data-user-id': userId,
        'data-saving': saving.has(job.id) ? 'true' : null,
        'aria-labelledby': headingId,
        'aria-busy': saving.has(job.id) ? 'true' : null,
      },
      [
        el('h3', { id: headingId, text: '#' + job.number + (job.title ? ' · ' + job.title : '') }),
        el('p', { class: 'time', text: time + ' · ' + job.status }),
        place ? el('p', { class: 'customer', text: place }) : null,
        description ? el('p', { class: 'desc', text: description, title: description }) : null,
        error ? el('p', { class: 'card-error', role: 'alert', text: error }) : null,
        el('button', { type: 'button', class: 'move', text: 'Move…', 'aria-label': 'Move job ' + job.number }),
      ],
    );
    return card;
  }

  function render() {
    var table = $('board');
    if (!day) return;
    var focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('.card') : null;
    var focus = focused ? { job: focused.dataset.jobId, user: focused.dataset.userId, button: document.activeElement !== focused } : null;

    var cols = columns();
    var list = Array.from(jobs.values()).sort(function (a, b) {
      return new Date(a.scheduledStart) - new Date(b.scheduledStart) || (a.number < b.number ? -1 : 1);
    });
    var first = 7;
    var last = 18;
    list.forEach(function (job) {
      var hour = new Date(job.scheduledStart).getHours();
      first = Math.min(first, hour);
      last = Math.max(last, hour);
    });

    var cells = {};
    list.forEach(function (job) {
      var hour = new Date(job.scheduledStart).getHours();
      var assignees = (job.assignments && job.assignments.nodes) || [];
      var owners = assignees.length
        ? assignees.map(function (a) {
            return String(a.userId);
          })
        : [''];
      owners.forEach(function (owner) {
        if (owner !== '' && !users.has(owner)) users.set(owner, 'User ' + owner);
        var at = owner + '@' + hour;
        (cells[at] = cells[at] || []).push(job);
      });
    });
    cols = columns();

    var head = el('tr', null, [el('th', { scope: 'col', class: 'hour-col', text: 'Time' })]);
    cols.forEach(function (col) {
      var count = list.filter(function (job) {
        var a = (job.assignments && job.assignments.nodes) || [];
        return col.id === ''
          ? a.length === 0
          : a.some(function (x) {
              return String(x.userId) === col.id;
            });
      }).length;
      head.appendChild(el('th', { scope: 'col', class: 'column-head drop', 'data-user-id': col.id, text: col.name + ' (' + count + ')' }));
    });
    var body = el('tbody');
    for (var hour = first; hour <= last; hour++) {
      var row = el('tr', { 'data-hour': hour }, [el('th', { scope: 'row', text: pad(hour) + ':00' })]);
      cols.forEach(function (col) {
        var cell = el('td', { class: 'slot drop', 'data-user-id': col.id, 'data-hour': hour, 'aria-label': col.name + ', ' + pad(hour) + ':00' });
        (cells[col.id + '@' + hour] || []).forEach(function (job) {
          cell.appendChild(cardOf(job, col.id));
        });
        row.appendChild(cell);
      });
      body.appendChild(row);
    }
    table.replaceChildren(el('thead', null, [head]), body);
    table.style.minWidth = 4.5 + cols.length * 13 + 'rem';

    if ($('board-section').dataset.loaded === day)
      $('summary').textContent =
        list.length +
        (list.length === 1 ? ' job' : ' jobs') +
        ' on ' +
        parseDay(day).toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }) +
        (hasMore ? ' (more jobs start this day than the board shows: ' + BOARD_LIMIT + ' at most)' : '') +
        '.';

    if (focus) {
      var again = table.querySelector('.card[data-job-id="' + CSS.escape(focus.job) + '"][data-user-id="' + CSS.escape(focus.user) + '"]') || table.querySelector('.card[data-job-id="' + CSS.escape(focus.job) + '"]');
      if (again) (focus.button ? again.querySelector('.move') : again).focus();
    }
  }

  // ---- drag and drop ----
  function dropTarget(node) {
    return node && node.closest ? node.closest('#board .drop') : null;
  }
  function clearTargets() {
    document.querySelectorAll('#board .drop-target').forEach(function (node) {
      node.classList.remove('drop-target');
    });
  }
  function wireDragAndDrop() {
    var table = $('board');
    table.addEventListener('dragstart', function (event) {
      var card = event.target.closest && event.target.closest('.card');
      if (!card) return;
      dragged = { jobId: card.dataset.jobId, fromUserId: card.dataset.userId };
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', card.dataset.jobId);
    });
    table.addEventListener('dragend', function () {
      dragged = null;
      clearTargets();
    });
    table.addEventListener('dragover', function (event) {
      var target = dropTarget(event.target);
      if (!dragged || !target) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (!target.classList.contains('drop-target')) {
        clearTargets();
        target.classList.add('drop-target');
      }
    });
    table.addEventListener('dragleave', function (event) {
      var target = dropTarget(event.target);
      if (target && !target.contains(event.relatedTarget)) target.classList.remove('drop-target');
    });
    table.addEventListener('drop', function (event) {
      var target = dropTarget(event.target);
      var what = dragged;
      dragged = null;
      clearTargets();
      if (!what || !target) return;
      event.preventDefault();
      var job = jobs.get(what.jobId);
      if (!job) return;
      var hour = target.dataset.hour;
      move(what.jobId, what.fromUserId, target.dataset.userId, hour === undefined ? null : startAtHour(job, Number(hour)));
    });
    table.addEventListener('click', function (event) {
      var button = event.target.closest && event.target.closest('.card .move');
      if (!button) return;
      var card = button.closest('.card');
      openMoveDialog(card.dataset.jobId, card.dataset.userId);
    });
  }

  // ---- the Move… dialog (keyboard and pointer alike) ----
  function openMoveDialog(jobId, fromUserId) {
    var job = jobs.get(jobId);
    if (!job) return;
    moving = { jobId: jobId, fromUserId: fromUserId };
    $('move-heading').textContent = 'Move job ' + job.number;
    var select = $('move-user');
    select.replaceChildren.apply(
      select,
      columns().map(function (col) {
        return el('option', { value: col.id, text: col.name, selected: col.id === fromUserId });
      }),
    );
    $('move-time').value = hhmm(new Date(job.scheduledStart));
    $('move-dialog').showModal();
  }
  function wireMoveDialog() {
    var dialog = $('move-dialog');
    $('move-form').addEventListener('submit', function (event) {
      event.preventDefault();
      var what = moving;
      moving = null;
      dialog.close();
      if (!what) return;
      var m = /^(\d{2}):(\d{2})/.exec($('move-time').value);
      var d = parseDay(day);
      var start = m ? new Date(d.getFullYear(), d.getMonth(), d.getDate(), Number(m[1]), Number(m[2])) : null;
      move(what.jobId, what.fromUserId, $('move-user').value, start);
    });
    $('move-cancel').addEventListener('click', function () {
      moving = null;
      dialog.close();
    });
  }

  // ---- live updates ----
  function stopLive() {
    clearTimeout(live.timer);
    clearTimeout(live.reloadTimer);
    live.timer = null;
    live.reloadTimer = null;
    live.current = null;
    if (live.unsubscribe) live.unsubscribe();
    live.unsubscribe = null;
    if (live.client) live.client.dispose();
    live.client = null;
  }

  function applyEvent(event) {
    if (typeof event.seq === 'number' && (live.lastSeq === null || event.seq > live.lastSeq)) live.lastSeq = event.seq;
    if (!event.job) return reloadSoon();
    if (event.topic === 'JOB_DELETED') {
      drop(event.job.id);
      cardErrors.delete(event.job.id);
    } else {
      var job = event.job;
      if (event.etag) job.etag = event.etag;
      take(job);
    }
    render();
  }

  /** An event the server could not serve: the board is read again (once for a burst), so nothing is missed. */
  function reloadSoon() {
    var mine = generation;
    if (live.reloadTimer) return;
    live.reloadTimer = setTimeout(function () {
      live.reloadTimer = null;
      if (mine === generation) loadBoard().catch(boardFailed);
    }, 250);
  }

  function liveClient() {
    if (live.client) return live.client;
    var mine = generation;
    var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + GRAPHQL_PATH;
    live.client = window.graphqlWs.createClient({
      url: url,
      connectionParams: function () {
        return { authorization: 'Bearer ' + key };
      },
      lazy: true,
      retryAttempts: 0, // reconnects are ours (reconnect below): they resume after the last seq seen
      keepAlive: 15000,
    });
    live.client.on('connected', function () {
      if (mine !== generation) return;
      live.retries = 0;
      setLive('live', 'Live');
    });
    live.client.on('closed', function () {
      if (mine !== generation) return;
      if ($('live').dataset.state === 'live') setLive('reconnecting', 'Reconnecting…');
    });
    return live.client;
  }

  /**
   * Subscribes to the day's job events (after afterSeq, when given); resolves once the socket is connected (or
   * the subscription failed, or after 3 s). Each subscription has its own token: the handlers of one that was
   * replaced (a resync, a reconnect, another day) do nothing.
   */
  function subscribe(afterSeq) {
    if (!window.graphqlWs) return Promise.resolve();
    var token = {};
    live.current = token;
    if (live.unsubscribe) live.unsubscribe();
    var client = liveClient();
    var w = windowOf(day);
    var variables = { filter: { from: w.from.toISOString(), to: w.to.toISOString() } };
    if (afterSeq !== null && afterSeq !== undefined) variables.afterSeq = afterSeq;
    return new Promise(function (resolve) {
      var settled = false;
      var off = function () {};
      var settle = function () {
        if (!settled) {
          settled = true;
          off();
          resolve();
        }
      };
      off = client.on('connected', settle);
      setTimeout(settle, 3000);
      live.unsubscribe = client.subscribe(
        { query: JOB_EVENTS, variables: variables },
        {
          next: function (result) {
            if (token !== live.current) return;
            var event = result.data && result.data.jobEvents;
            if (result.errors && result.errors.length) {
              var code = codeOf(result.errors);
              if (code === 'subscription.resync_required') return resync();
              // The stream ends after this (a revoked key, say); what it could not serve is read again.
              showBanner('Live update failed: ' + messageOf(result.errors));
              if (!event) return reloadSoon();
            }
            if (event) applyEvent(event);
          },
          error: function (error) {
            settle();
            if (token !== live.current) return;
            live.unsubscribe = null;
            if (Array.isArray(error)) {
              // The server refused the subscription itself (GraphQL errors): no retry, except a resync.
              if (codeOf(error) === 'subscription.resync_required') return resync();
              setLive('unavailable', 'Not live: ' + messageOf(error));
              return;
            }
            var code = error && typeof error.code === 'number' ? error.code : null;
            if (code === 4400 || code === 4401 || code === 4403) {
              setLive('unavailable', 'Not live: ' + (error.reason || 'the key was refused') + '. Refresh to try again.');
              return;
            }
            reconnect();
          },
          complete: function () {
            settle();
            if (token !== live.current) return;
            live.unsubscribe = null;
            reconnect();
          },
        },
      );
    });
  }

  /** After a lost connection: subscribe again after the last seq seen (or read the board again if none was seen). */
  function reconnect() {
    var mine = generation;
    live.current = null;
    setLive('reconnecting', 'Reconnecting…');
    var delay = Math.min(10000, 500 * Math.pow(2, live.retries++)) * (0.75 + Math.random() * 0.5);
    clearTimeout(live.timer);
    live.timer = setTimeout(function () {
      if (mine !== generation) return;
      if (live.lastSeq !== null) subscribe(live.lastSeq);
      else
        subscribe(null).then(function () {
          if (mine === generation) return loadBoard().catch(boardFailed);
        });
    }, delay);
  }

  /** The server cannot replay from our seq: read the board again and follow the events from now on. */
  function resync() {
    var mine = generation;
    live.lastSeq = null;
    subscribe(null).then(function () {
      if (mine === generation) return loadBoard().catch(boardFailed);
    });
  }

  // ---- the day and the key ----
  function boardFailed(error) {
    if (error instanceof KeyRefused) return keyRefused(error.message);
    showBanner('Could not read the board: ' + messageOf(error));
  }

  async function openDay(text, options) {
    if (!parseDay(text)) text = dayOf(new Date());
    day = text;
    generation += 1;
    stopLive();
    jobs.clear();
    seen.clear();
    saving.clear();
    cardErrors.clear();
    live.lastSeq = null;
    live.retries = 0;
    $('day-input').value = day;
    delete $('board-section').dataset.loaded;
    var url = new URL(location.href);
    url.searchParams.set('day', day);
    if (!options || !options.keepHistory) history.replaceState(null, '', url.pathname + url.search);
    setLive('connecting', 'Connecting…');
    $('summary').textContent = 'Loading…';
    render();
    // Live first, then the board, so that a change made while the board is read is not missed.
    try {
      await subscribe(null);
    } catch (error) {
      setLive('unavailable', 'Not live: ' + messageOf(error));
    }
    try {
      await loadBoard();
    } catch (error) {
      boardFailed(error);
    }
  }

  function keyRefused(message) {
    generation += 1;
    stopLive();
    sessionStorage.removeItem(KEY_STORAGE);
    key = null;
    $('board-section').hidden = true;
    $('key-section').hidden = false;
    var error = $('key-error');
    error.textContent = 'The key was refused: ' + message;
    error.hidden = false;
    $('key-input').focus();
  }

  function start() {
    $('key-section').hidden = true;
    $('board-section').hidden = false;
    $('key-error').hidden = true;
    hideBanner();
    openDay(new URL(location.href).searchParams.get('day') || dayOf(new Date()));
  }

  function shiftDay(days) {
    var d = parseDay(day) || new Date();
    openDay(dayOf(new Date(d.getFullYear(), d.getMonth(), d.getDate() + days)));
  }

  function init() {
    if (!window.graphqlWs) setLive('unavailable', 'Not live: the graphql-ws client did not load.');
    $('key-form').addEventListener('submit', function (event) {
      event.preventDefault();
      var value = $('key-input').value.trim();
      if (!value) return;
      key = value;
      sessionStorage.setItem(KEY_STORAGE, key);
      $('key-input').value = '';
      start();
    });
    $('forget-key').addEventListener('click', function () {
      generation += 1;
      stopLive();
      sessionStorage.removeItem(KEY_STORAGE);
      key = null;
      jobs.clear();
      users.clear();
      $('board').replaceChildren();
      $('board-section').hidden = true;
      $('key-section').hidden = false;
      $('key-input').focus();
    });
    $('day-input').addEventListener('change', function () {
      if (parseDay($('day-input').value)) openDay($('day-input').value);
    });
    $('previous-day').addEventListener('click', function () {
      shiftDay(-1);
    });
    $('next-day').addEventListener('click', function () {
      shiftDay(1);
    });
    $('today').addEventListener('click', function () {
      openDay(dayOf(new Date()));
    });
    $('refresh').addEventListener('click', function () {
      hideBanner();
      openDay(day);
    });
    $('banner-close').addEventListener('click', hideBanner);
    wireDragAndDrop();
    wireMoveDialog();
    key = sessionStorage.getItem(KEY_STORAGE);
    if (key) start();
    else $('key-input').focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
