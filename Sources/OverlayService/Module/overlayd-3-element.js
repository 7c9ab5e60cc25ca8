// (overlayd.js, part 3 of 3: following a channel, and the element; OverlaydModule joins the parts.)

// ---- following a channel: its event stream, and the server's clock ----

async function errorText(response) {
  try {
    const json = await response.json();
    return response.status + ' ' + json.error.code + ': ' + json.error.message;
  } catch (e) {
    return String(response.status);
  }
}

// Follows one channel's event stream and keeps the latest overlay, with what it takes to know
// the server's time at a display frame. `on.overlay(ov)` hears of each new version,
// `on.state(state, message)` of each change of the connection.
class Follower {
  constructor(base, channelPath, token, on) {
    this.base = base;         // the overlayd's URL, without a trailing slash
    this.channelPath = channelPath;
    this.token = token;
    this.on = on;
    this.overlay = null;
    this.clock = null;        // 'real' or 'manual' once read
    this.stopped = false;
    this.source = null;
    this.retry = null;
    this.poll = null;
    this.resync = false;
    this.offset = null;       // server time − display time, in seconds
    this.manualNow = 0;
    this.shownState = null;   // the state last told, so that a listener hears each change once
    this.state('connecting', '');
    this.connect();
  }

  url(path, query) {
    const parameters = new URLSearchParams(query || {});
    if (this.token) parameters.set('auth', this.token);
    const rest = parameters.toString();
    return this.base + path + (rest ? '?' + rest : '');
  }

  stop() {
    this.stopped = true;
    if (this.source) this.source.close();
    clearTimeout(this.retry);
    clearInterval(this.poll);
  }

  state(state, message) {
    const shown = state + ' ' + message;
    if (this.stopped || this.shownState === shown) return;
    this.shownState = shown;
    this.on.state(state, message);
  }

  // The server's time for a display frame at `timestamp` (ms, requestAnimationFrame's). A manual
  // clock is exactly what the server said last; a real one runs on from the measured offset.
  timeAt(timestamp) {
    if (this.clock === 'manual') return Math.max(this.manualNow, this.overlay.now);
    return timestamp / 1000 + this.offset;
  }

  connect() {
    if (this.stopped) return;
    // A new EventSource sends no Last-Event-ID header: the version it has goes in the query (the
    // one EventSource reconnects by itself sends the header, which the server prefers).
    const query = this.overlay ? {lastEventId: String(this.overlay.version)} : {};
    const source = new EventSource(this.url(this.channelPath + '/events', query));
    this.source = source;
    source.addEventListener('open', () => {
      // A new connection may reach a restarted server, whose versions and clock start afresh: the
      // next overlay is taken whatever its version, and the clock offset is measured again. Until
      // then the old one stays drawn (a reconnect that missed nothing gets no event).
      this.resync = true;
      this.readClock();
      this.state('live', '');
    });
    source.addEventListener('overlay', (event) => {
      let ov;
      try { ov = JSON.parse(event.data); } catch (e) { this.state('live', 'unreadable event: ' + e.message); return; }
      this.accept(ov);
    });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) {
        this.state('reconnecting', '');
        return;
      }
      // EventSource gives up on an HTTP error: ask the same channel why, in words.
      source.close();
      this.probe();
    });
  }

  async probe() {
    let response = null;
    try { response = await fetch(this.url(this.channelPath + '/overlay'), {cache: 'no-store'}); } catch (e) { response = null; }
    if (this.stopped) return;
    if (response && (response.status === 401 || response.status === 403)) {
      // Waiting makes no credential valid: the element stays stopped until its token changes.
      const message = await errorText(response);
      this.state('unauthorized', message);
      this.stop();
      return;
    }
    this.state('reconnecting', response && !response.ok ? 'events: ' + await errorText(response) : '');
    this.retry = setTimeout(() => this.connect(), RETRY_MS);
  }

  async readClock() {
    let clock = null;
    try {
      const response = await fetch(this.url('/clock'), {cache: 'no-store'});
      if (response.ok) clock = await response.json();
    } catch (e) { clock = null; }
    if (this.stopped) return;
    // Unreadable (a credential that may read the channel and not the clock): taken as real.
    this.clock = clock && clock.mode === 'manual' ? 'manual' : 'real';
    if (this.clock === 'manual') {
      if (clock.now > this.manualNow) this.manualNow = clock.now;
      if (!this.poll) this.poll = setInterval(() => this.pollClock(), MANUAL_CLOCK_MS);
    } else {
      clearInterval(this.poll);
      this.poll = null;
    }
  }

  async pollClock() {
    if (document.hidden) return;
    try {
      const response = await fetch(this.url('/clock'), {cache: 'no-store'});
      if (response.ok) { const clock = await response.json(); if (clock.now > this.manualNow) this.manualNow = clock.now; }
    } catch (e) { /* the event stream reports a lost server */ }
  }

  accept(ov) {
    if (!ov || typeof ov.version !== 'number' || !ov.frame) return;
    const current = this.overlay;
    const resynced = this.resync;
    if (resynced) {
      this.resync = false;
      this.offset = null;
      this.manualNow = ov.now;
    } else if (current && (ov.version < current.version || (ov.version === current.version && ov.now < current.now))) {
      return;
    }
    this.overlay = ov;
    // The sample with the least delay in delivery gives the largest offset: keep that one.
    const sample = ov.now - performance.now() / 1000;
    if (this.offset === null || sample > this.offset) this.offset = sample;
    if (ov.now > this.manualNow) this.manualNow = ov.now;
    if (resynced || !current || current.version !== ov.version) this.on.overlay(ov);
  }
}

// ---- the element ----

class OverlaydOverlay extends HTMLElement {
  static observedAttributes = ['src', 'channel', 'token', 'layout'];

  #root = null;
  #view = null;
  #viewLayout = null;
  #family = null;         // the CSS font-family list of the measuring font
  #follower = null;
  #following = null;      // the src, channel and token the follower was made for
  #connection = 'idle';
  #drawnVersion = null;
  #drawnNow = null;
  #spoken = null;         // the announcementVersion the live region holds
  #frame = 0;
  #room = {width: 0, height: 0};
  #resize = new ResizeObserver((entries) => {
    const r = entries[entries.length - 1].contentRect;
    this.#room = {width: r.width, height: r.height};
  });
  #pending = false;

  constructor() {
    super();
    this.attachShadow({mode: 'open'});
  }

  /** `device` or `bar`. */
  get layout() { return this.getAttribute('layout') === 'bar' ? 'bar' : 'device'; }
  /** The latest overlay received (its JSON, as `overlaychange` gave it), or null. */
  get overlay() { return this.#follower ? this.#follower.overlay : null; }
  /** `idle`, `connecting`, `live`, `reconnecting` or `unauthorized`. */
  get connection() { return this.#connection; }
  /** `real` or `manual` once the server's clock has been read, else null. */
  get clock() { return this.#follower ? this.#follower.clock : null; }
  /** What the last frame drew: the overlay's version and the server time it was drawn at. */
  get drawn() { return this.#drawnVersion === null ? null : {version: this.#drawnVersion, now: this.#drawnNow}; }

  // The drawing's elements exist as soon as the element is in a document; the stream starts a
  // moment later (#schedule).
  connectedCallback() {
    this.#render();
    this.#schedule();
  }
  disconnectedCallback() { this.#schedule(); }
  attributeChangedCallback(name) {
    if (name === 'layout' && this.isConnected) this.#render();
    this.#schedule();
  }

  // Attributes set one after another (or right after the element is added) take effect together,
  // once: a page that sets src, channel and token opens one stream, not three.
  #schedule() {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => { this.#pending = false; this.#sync(); });
  }

  #sync() {
    if (!this.isConnected) {
      this.#stopFollowing();
      cancelAnimationFrame(this.#frame);
      this.#frame = 0;
      this.#resize.disconnect();
      return;
    }
    const src = (this.getAttribute('src') || location.origin).replace(/\/+$/, '');
    const channel = this.getAttribute('channel') || 'default';
    const token = this.getAttribute('token') || '';
    const following = JSON.stringify([src, channel, token]);
    if (this.#following !== following) {
      this.#stopFollowing();
      this.#following = following;
      this.#family = '"' + fontFamily(src + '/preview/font') + '",system-ui,sans-serif';
      this.#root.style.setProperty('--text', this.#family);
      const channelPath = channel === 'default' ? '' : '/channels/' + encodeURIComponent(channel);
      this.#follower = new Follower(src, channelPath, token, {
        overlay: (ov) => this.#emit('overlaychange', structuredClone(ov)),
        state: (state, message) => {
          this.#connection = state;
          this.#emit('overlayconnection', {state, message});
        },
      });
    }
    if (!this.#frame) {
      this.#resize.observe(this);
      this.#frame = requestAnimationFrame(this.#draw);
    }
  }

  #render() {
    const layout = this.layout;
    if (this.#viewLayout === layout) return;
    this.shadowRoot.innerHTML = '<style>' + STYLE + '</style><div id="root" class="' + layout + '">' +
      (layout === 'bar' ? OVERLAY_HTML : DEVICE_HTML) + '</div>';
    this.#root = this.shadowRoot.getElementById('root');
    if (this.#family) this.#root.style.setProperty('--text', this.#family);
    const $ = (id) => this.shadowRoot.getElementById(id);
    this.#view = layout === 'bar' ? new BarView($) : new DeviceView($);
    this.#viewLayout = layout;
    this.#spoken = null;
    if (layout === 'device') $('statusbar').addEventListener('click', () => this.#emit('statusbartap', {}));
  }

  #stopFollowing() {
    if (this.#follower) this.#follower.stop();
    this.#follower = null;
    this.#following = null;
    this.#connection = 'idle';
    this.#drawnVersion = null;
    this.#drawnNow = null;
  }

  // The live region holds the announcement once per change (docs/MODEL.md §14): written again
  // when another message is shown with the same text, never for a progress step within its ten.
  #speak(ov) {
    if (!('announcementVersion' in ov) || ov.announcementVersion === this.#spoken) return;
    this.#spoken = ov.announcementVersion;
    this.shadowRoot.getElementById('announcement').textContent = ov.announcement || '';
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, {detail, bubbles: true, composed: true}));
  }

  #draw = (timestamp) => {
    this.#frame = requestAnimationFrame(this.#draw);
    const follower = this.#follower;
    if (!follower || !follower.overlay || !follower.clock) return;
    const ov = follower.overlay;
    const t = follower.timeAt(timestamp);
    this.#view.draw(ov, t, this.#room);
    this.#speak(ov);
    this.#drawnVersion = ov.version;
    this.#drawnNow = t;
  };
}

// A page may load this module twice (under two URLs, or a copy): the element is defined once.
if (!customElements.get(TAG)) customElements.define(TAG, OverlaydOverlay);
