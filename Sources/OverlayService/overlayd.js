// <overlayd-overlay>: an overlayd's overlay, drawn live on any web page.
//
//   <script type="module" src="http://overlayd.example:8080/overlayd.js"></script>
//   <overlayd-overlay src="http://overlayd.example:8080" layout="bar"></overlayd-overlay>
//
// Attributes: `src`, the overlayd's base URL (default: the page's origin); `channel` (default
// `default`); `token`, a read credential, sent as `?auth=`; `layout`, `device` (the default: the
// device's screen as the preview page draws it) or `bar` (the overlay's content alone, across the
// element's width at its height). The element follows the channel's event stream, interpolates
// each animation at display rate, reconnects (catching up with Last-Event-ID) and dispatches
// `overlaychange` (bubbling, composed; detail: the overlay JSON) on every version it receives, and
// `overlayconnection` (detail: {state, message}) when its connection changes.
//
// overlayd serves this one file at GET /overlayd.js, and its preview page draws through it: there
// is one renderer. It requests nothing but the overlayd it is pointed at: the event stream,
// /clock, /overlay (only to learn why a stream was refused) and /preview/font.

// The server's drawing settings, written in when it starts (GET /overlayd.js): each device's screen,
// status bar, safe area and cutout, the progress bar's cap width and the text sizes. An overlay
// names its device; these say what that device looks like.
export const settings = {"devices":{}};

const TAG = 'overlayd-overlay';

const STYLE = `
:host{display:block;position:relative;height:480px}
:host([layout="bar"]){height:40px}
:host([hidden]){display:none}
[hidden]{display:none!important}
*{box-sizing:border-box}
/* Nothing the page around sets (its font, line height, alignment) reaches the drawing. */
#root{all:initial;display:block;position:absolute;inset:0;font:14px/1.35 var(--ui);--ui:system-ui,-apple-system,"SF Pro Text","Helvetica Neue","Segoe UI",Roboto,Arial,sans-serif}
#root.device{display:flex;align-items:center;justify-content:center}
#root.bar{overflow:hidden}
#holder{position:relative;flex:none}
#device{position:absolute;left:0;top:0;transform-origin:0 0;background:linear-gradient(145deg,#2b2b2f,#0c0c0d);box-shadow:0 0 0 1.5px #48484a inset,0 0 0 3px #0a0a0a,0 30px 80px rgba(0,0,0,.55)}
#screen{position:absolute;overflow:hidden;background:#000;isolation:isolate}
.speaker,.home,.cam{position:absolute;left:50%;transform:translateX(-50%);background:#050505}
.speaker{height:6px;width:52px;border-radius:3px}.cam{width:10px;height:10px;border-radius:50%}
.home{border-radius:50%;box-shadow:0 0 0 1.5px #3a3a3c inset}
#notch{position:absolute;left:50%;top:0;background:#000;border-radius:0 0 20px 20px;z-index:9;pointer-events:none}
#island{position:absolute;background:#000;z-index:9;pointer-events:none}
#safe{position:absolute;left:0;right:0;height:0;border-top:1px dashed rgba(255,255,255,.32);z-index:3;pointer-events:none}
#app.light #safe{border-color:rgba(0,0,0,.28)}
#notch::before,#notch::after{content:"";position:absolute;top:0;width:12px;height:12px;background:radial-gradient(circle at 0 100%,transparent 11.5px,#000 12px)}
#notch::before{left:-12px}#notch::after{right:-12px;transform:scaleX(-1)}
#app,#statusbar,#root.device #overlay{position:absolute;left:0;top:0;transform-origin:50% 50%}
#app{font-family:var(--ui);overflow:hidden;background:#000}
.nav{color:#fff;background:linear-gradient(180deg,#5e5ce6,#4b49c8)}
.navbar{height:44px;display:flex;align-items:center;justify-content:space-between;padding:0 10px;font-size:17px}
.navbar b{font-weight:600}.navbar span{color:#d4d3ff}
.large{font-size:30px;font-weight:700;padding:0 16px 10px;letter-spacing:-.02em}
.list{padding:14px 0}
.cell{display:flex;align-items:center;gap:12px;padding:0 16px;height:62px;background:#1c1c1e;color:#fff}
.cell+.cell>div{border-top:.5px solid #38383a}
.cell>div{flex:1;height:100%;display:flex;flex-direction:column;justify-content:center;min-width:0}
.cell b{font-size:15px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.cell small{font-size:13px;color:#8e8e93}
.cell i{width:38px;height:38px;border-radius:9px;flex:none}
#app.light{background:#f2f2f7}
#app.light .nav{color:#000;background:#f9f9f9;box-shadow:0 .5px 0 #c6c6c8}
#app.light .navbar span{color:#007aff}
#app.light .cell{background:#fff;color:#000}
#app.light .cell+.cell>div{border-color:#c6c6c8}
#statusbar{overflow:hidden;z-index:5;pointer-events:none}
#sb-content{position:absolute;left:0;top:0;width:100%;height:100%;display:flex;align-items:center;font-weight:600;font-family:var(--ui);color:#fff;white-space:nowrap}
#statusbar.dark #sb-content{color:#000}
#sb-content svg{fill:currentColor;display:block}
.sb-l,.sb-r{flex:1;display:flex;align-items:center;gap:4px}.sb-r{justify-content:flex-end}
.sb-c{flex:1;display:flex;justify-content:center}
.ear{flex:none;display:flex;justify-content:center}.ear:first-child{padding-left:8px}.ear:last-child{padding-right:10px}
.icons{display:flex;align-items:center;gap:4px}
#statusbar.notch #sb-content{padding-bottom:10px}#statusbar.island #sb-content{padding-top:5px}
/* Only what is drawn takes a finger (the bar or the pill), not the window's empty corners. */
#overlay{overflow:hidden;z-index:6;pointer-events:none}
#root.bar #overlay{position:absolute;left:0;top:0;transform-origin:0 0}
#overlay-bg,#pill{position:absolute;left:0;pointer-events:auto}
#pill{box-shadow:0 3px 10px rgba(0,0,0,.28)}
/* The pill's window ends at its bottom edge: its shadow may fall below (the screen still clips a slide). */
#overlay.pill{overflow:visible}
.text{position:absolute;display:flex;align-items:center;justify-content:center;font-family:var(--text);font-weight:400;font-synthesis:none;font-kerning:normal;white-space:nowrap}
#overlay.notch #label{align-items:flex-end}
.text>span{max-width:100%;overflow:hidden;text-overflow:ellipsis;line-height:1.15}
#subtitle{opacity:.85}
#accessory{position:absolute;display:flex;align-items:center;justify-content:center}
#icon{font:14px/16px "Apple Color Emoji","Noto Color Emoji","Segoe UI Emoji",var(--text)}
#spinner{width:100%;height:100%;border-radius:50%;background:conic-gradient(from 0deg,transparent 0 12%,currentColor);-webkit-mask:radial-gradient(farthest-side,transparent 58%,#000 61%);mask:radial-gradient(farthest-side,transparent 58%,#000 61%);animation:spin .9s steps(12) infinite}
@keyframes spin{to{transform:rotate(1turn)}}
#bar{position:absolute;display:flex}
#bar>*{height:100%;background:currentColor}
#bar-cap-left{border-radius:999px 0 0 999px}#bar-cap-right{border-radius:0 999px 999px 0}
#bar-fill{flex:1;min-width:0}
`;

// What both layouts draw: the overlay window's background and pill, texts, accessory and progress
// bar. The `part` lets the page the element is on style what a finger presses (the preview does).
const OVERLAY_HTML = `
<div id="overlay">
  <div id="overlay-bg" part="surface"></div>
  <div id="pill" part="surface" hidden></div>
  <div id="label" class="text"><span id="label-text"></span></div>
  <div id="subtitle" class="text" hidden><span id="subtitle-text"></span></div>
  <div id="accessory" hidden><div id="spinner" hidden></div><span id="icon" hidden></span></div>
  <div id="bar" hidden><div id="bar-cap-left"></div><div id="bar-fill"></div><div id="bar-cap-right"></div></div>
</div>`;

const DEVICE_HTML = `
<div id="holder">
  <div id="device">
    <div class="speaker" id="speaker"></div><div class="cam" id="cam"></div><div class="home" id="home"></div>
    <div id="screen">
      <div id="app">
        <div id="safe" hidden></div>
        <div class="nav"><div id="app-top"></div><div class="navbar"><span>‹ Library</span><b>Uploads</b><span>Edit</span></div><div class="large">Uploads</div></div>
        <div class="list" id="list"></div>
      </div>
      <div id="statusbar"><div id="sb-content"></div></div>
      ${OVERLAY_HTML}
      <div id="notch" hidden></div>
      <div id="island" hidden></div>
    </div>
  </div>
</div>`;

// The sample app under the status bar: name, detail and icon colour of each row.
const ROWS = [['IMG_2041.HEIC', 'Sending to the cloud…', '#0a84ff'], ['Quarterly report.pdf', 'Sent · 2.4 MB', '#34c759'], ['Holiday.mov', 'Failed · tap to retry', '#ff453a'],
  ['Podcast 128.mp3', 'Downloading · 40 %', '#bf5af2'], ['Invoice 0042.pdf', 'Sent · 180 KB', '#ff9f0a'], ['Screenshot.png', 'Queued', '#64d2ff'], ['Notes.txt', 'Sent · 3 KB', '#ffd60a'],
  ['Concert.mp4', 'Queued', '#ff375f'], ['Backup.zip', 'Sent · 1.1 GB', '#30d158'], ['Slides.key', 'Queued', '#5e5ce6'], ['Map.gpx', 'Sent · 12 KB', '#ac8e68'], ['Song.m4a', 'Queued', '#0a84ff']];

// A sliver of room around the drawn device for its shadow, in CSS pixels on each side.
const DEVICE_MARGIN = 24;
// How long a refused stream waits before it is opened again (an unreachable server is retried by
// EventSource itself, at the `retry` the server sends).
const RETRY_MS = 1500;
// How often the manual clock is read: it moves without an event when no deadline is reached.
const MANUAL_CLOCK_MS = 250;

// ---- timing curves, as the server computes them ----

function easeInOut(x) {
  // Core Animation's ease-in-ease-out, cubic Bézier (0.42, 0) (0.58, 1), solved for x by halving.
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const at = (t, p1, p2) => { const u = 1 - t; return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t; };
  let low = 0, high = 1;
  for (let i = 0; i < 40; i++) { const mid = (low + high) / 2; if (at(mid, 0.42, 0.58) < x) low = mid; else high = mid; }
  return at((low + high) / 2, 0, 1);
}
// The ease-out bounce b(p) of SPEC §10 (JDStatusBarNotification's), as the server computes it.
function easeOutBounce(p) {
  const n = 7.5625, d = 2.75;
  if (p < 1 / d) return n * p * p;
  if (p < 2 / d) { const q = p - 1.5 / d; return n * q * q + 0.75; }
  if (p < 2.5 / d) { const q = p - 2.25 / d; return n * q * q + 0.9375; }
  const q = p - 2.625 / d;
  return n * q * q + 0.984375;
}
// `value` at time t: the animation's own value while one of `names` is animated, else `value`.
function animated(animation, names, value, t) {
  if (!animation || !names.includes(animation.property)) return value;
  let f = animation.duration > 0 ? (t - animation.start) / animation.duration : 1;
  f = Math.min(1, Math.max(0, f));
  // Written as the server writes it: the distance still to go, to − (to − from)(1 − b(p)).
  if (animation.curve === 'easeOutBounce') return animation.to - (animation.to - animation.from) * (1 - easeOutBounce(f));
  if (animation.curve === 'easeInOut') f = easeInOut(f);
  return animation.from + (animation.to - animation.from) * f;
}

// ---- writing styles only when they change (every frame draws, most frames change nothing) ----

const written = new WeakMap();
function set(el, property, value) {
  let seen = written.get(el);
  if (!seen) { seen = {}; written.set(el, seen); }
  if (seen[property] !== value) { seen[property] = value; el.style[property] = value; }
}
function text(el, value) {
  if (el.textContent !== value) el.textContent = value;
}
function box(el, b) {
  set(el, 'left', b.x + 'px');
  set(el, 'top', b.y + 'px');
  set(el, 'width', b.width + 'px');
  set(el, 'height', b.height + 'px');
}
// The window's own size, length × thickness: its frame is the portrait screen's, turned.
function windowSize(ov) {
  const turned = Math.abs(ov.rotation) === 90;
  return {length: turned ? ov.frame.height : ov.frame.width, thick: turned ? ov.frame.width : ov.frame.height};
}

// ---- the overlay's content, for both layouts ----
// `at(frame, how)` turns a frame of the JSON (the window's own points) into the box it is drawn
// at: each layout moves the content by the animation's offset and places it in its own way.

function drawText(el, inner, value, at, style, size) {
  el.hidden = !value;
  if (!value) return;
  box(el, at(value.frame, 'text'));
  set(el, 'color', style.foreground);
  set(el, 'fontSize', size + 'px');
  text(inner, value.text);
}
function drawAccessory($, ov, at, style) {
  const a = ov.accessory || null;
  $('accessory').hidden = !a;
  $('spinner').hidden = !a || a.kind !== 'activity';
  $('icon').hidden = !a || a.kind !== 'icon';
  if (!a) return;
  box($('accessory'), at(a.frame, 'accessory'));
  set($('accessory'), 'color', style.foreground);
  if (a.kind === 'icon') text($('icon'), a.icon || '');
}
function drawProgress($, ov, at, style) {
  const progress = $('bar');
  progress.hidden = !ov.progressBar;
  if (!ov.progressBar) return;
  const b = at(ov.progressBar.frame, 'progress');
  box(progress, b);
  set(progress, 'color', style.foreground);
  const cap = Math.min(settings.capWidth || 0, b.width / 2) + 'px';
  set($('bar-cap-left'), 'width', cap);
  set($('bar-cap-right'), 'width', cap);
}
function overlayStyle(ov) {
  return ov.style || {background: 'transparent', foreground: '#ffffff'};
}
function drawContent($, ov, at, titleSize) {
  const style = overlayStyle(ov);
  drawText($('label'), $('label-text'), ov.label, at, style, titleSize);
  drawText($('subtitle'), $('subtitle-text'), ov.subtitle, at, style, settings.subtitleSize || 12);
  drawAccessory($, ov, at, style);
  drawProgress($, ov, at, style);
}

// ---- layout "device": the device's screen, the status bar and the overlay window over an app ----

function deviceOf(ov) {
  const known = (settings.devices || {})[ov.device];
  if (known) {
    return {name: ov.device, width: known.width, height: known.height, bar: known.statusBarHeight,
      safeTop: known.safeAreaTop === undefined ? known.statusBarHeight : known.safeAreaTop, cutout: known.cutout || 'none', island: known.island || null};
  }
  // A device these settings do not know (another overlayd's): its size as the frames suggest.
  const turned = Math.abs(ov.rotation) === 90;
  const f = (ov.statusBar && ov.statusBar.frame) || ov.frame;
  const bar = turned ? f.width : f.height;
  const width = turned ? Math.max(f.x + bar, bar * 16) : f.width;
  const height = turned ? f.height : Math.max(f.y + bar, width * 1.5);
  return {name: ov.device, width, height, bar, safeTop: bar, cutout: 'none', island: null};
}
// The top safe area s' as the interface is turned (SPEC §10): s upright; on its side 0 beside a
// cutout (which is at a side then) and h without one.
function safeTop(d, rotation) {
  if (Math.abs(rotation) !== 90) return d.safeTop;
  return d.cutout === 'none' ? d.bar : 0;
}
function chrome(d) {
  const tablet = Math.min(d.width, d.height) >= 600;
  if (d.cutout !== 'none') return {pad: [14, 14, 14, 14], radius: 54, screenRadius: 40};
  if (tablet) return {pad: [64, 40, 64, 40], radius: 44, home: 46, cam: true};
  return {pad: [84, 18, 84, 18], radius: 52, home: 50, speaker: true};
}
// Places an element of the bar's own size (length × thickness) so that, turned by the rotation,
// it covers `frame` of the portrait screen.
function place(el, frame, rotation) {
  const turned = Math.abs(rotation) === 90;
  const length = turned ? frame.height : frame.width;
  const thick = turned ? frame.width : frame.height;
  set(el, 'left', frame.x + (frame.width - length) / 2 + 'px');
  set(el, 'top', frame.y + (frame.height - thick) / 2 + 'px');
  set(el, 'width', length + 'px');
  set(el, 'height', thick + 'px');
  set(el, 'transform', rotation ? 'rotate(' + rotation + 'deg)' : 'none');
  return {length, thick};
}

function statusBarContent(notch, size, ear) {
  const signal = notch
    ? '<svg width="17" height="11" viewBox="0 0 17 11"><rect y="7" width="3" height="4" rx="1"/><rect x="4.5" y="5" width="3" height="6" rx="1"/><rect x="9" y="2.5" width="3" height="8.5" rx="1"/><rect x="13.5" width="3" height="11" rx="1"/></svg>'
    : '<svg width="34" height="6" viewBox="0 0 34 6"><circle cx="3" cy="3" r="2.6"/><circle cx="10" cy="3" r="2.6"/><circle cx="17" cy="3" r="2.6"/><circle cx="24" cy="3" r="2.6"/><circle cx="31" cy="3" r="2.2" fill="none" stroke="currentColor" stroke-width=".8"/></svg>';
  const wifi = '<svg width="15" height="11" viewBox="0 0 15 11"><path d="M1.4 4.3a8.7 8.7 0 0 1 12.2 0M3.9 6.8a5.2 5.2 0 0 1 7.2 0" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"/><circle cx="7.5" cy="9.4" r="1.4"/></svg>';
  const battery = '<svg width="25" height="12" viewBox="0 0 25 12"><rect x=".5" y=".5" width="21" height="11" rx="3.2" fill="none" stroke="currentColor" opacity=".4"/><rect x="2" y="2" width="18" height="8" rx="1.8"/><path d="M23 4v4c.9-.3 1.4-1.1 1.4-2S23.9 4.3 23 4z" opacity=".4"/></svg>';
  const now = new Date();
  const hours = now.getHours(), minutes = String(now.getMinutes()).padStart(2, '0');
  if (notch) {
    // Beside a notch each side is centred in its ear; without one, at the bar's two ends.
    const side = ear ? 'class="ear" style="width:' + ear + 'px"' : 'style="padding:0 ' + size * 1.4 + 'px"';
    return '<div ' + side + '><span class="time">' + hours + ':' + minutes + '</span></div><div class="sb-c"></div>' +
      '<div ' + side + '><span class="icons">' + signal + wifi + battery + '</span></div>';
  }
  const clock = (hours % 12 || 12) + ':' + minutes + (hours < 12 ? ' AM' : ' PM');
  return '<div class="sb-l" style="padding-left:5px">' + signal + '<span style="font-weight:400;margin:0 3px">overlayd</span>' + wifi + '</div>' +
    '<div class="sb-c"><span class="time">' + clock + '</span></div><div class="sb-r" style="padding-right:5px"><span style="font-weight:400">100%</span>' + battery + '</div>';
}

class DeviceView {
  constructor($) {
    this.$ = $;
    this.shown = null;     // the device and room it is laid out for
    this.barKey = null;    // what the status bar's content was drawn for
    this.notch = false;
    this.island = false;
    this.cutoutWidth = 0;
    for (const [name, detail, colour] of ROWS) {
      const cell = document.createElement('div');
      cell.className = 'cell';
      const icon = document.createElement('i');
      icon.style.background = 'linear-gradient(160deg,' + colour + ',' + colour + 'aa)';
      const body = document.createElement('div');
      const title = document.createElement('b');
      title.textContent = name;
      const small = document.createElement('small');
      small.textContent = detail;
      body.append(title, small);
      cell.append(icon, body);
      $('list').appendChild(cell);
    }
  }

  draw(ov, t, room) {
    const d = deviceOf(ov);
    const key = d.name + ' ' + d.width + 'x' + d.height + ' ' + room.width + 'x' + room.height;
    if (this.shown !== key) { this.layout(d, room); this.shown = key; this.barKey = null; }
    const sb = ov.statusBar || {style: 'lightContent', hidden: false, alpha: 1, offset: 0, frame: ov.frame, animation: null};
    this.drawApp(ov, d, sb);
    this.drawStatusBar(ov, t, sb);
    this.drawOverlay(ov, t);
  }

  // The device scaled to fit the element, and its chrome: the bezel, speaker or camera, home button.
  layout(d, room) {
    const $ = this.$;
    const c = chrome(d);
    const width = d.width + c.pad[1] + c.pad[3];
    const height = d.height + c.pad[0] + c.pad[2];
    const scale = Math.max(0.01, Math.min((room.width - 2 * DEVICE_MARGIN) / width, (room.height - 2 * DEVICE_MARGIN) / height));
    const device = $('device');
    device.style.width = width + 'px';
    device.style.height = height + 'px';
    device.style.borderRadius = c.radius + 'px';
    device.style.transform = 'scale(' + scale + ')';
    $('holder').style.width = width * scale + 'px';
    $('holder').style.height = height * scale + 'px';
    const screen = $('screen');
    Object.assign(screen.style, {left: c.pad[3] + 'px', top: c.pad[0] + 'px', width: d.width + 'px', height: d.height + 'px', borderRadius: (c.screenRadius || 3) + 'px'});
    // The scale, for whoever reads the drawing back in the overlay's points (the browser tests).
    screen.dataset.scale = String(scale);
    this.cutout(d);
    $('speaker').hidden = !c.speaker;
    $('cam').hidden = !c.cam;
    $('home').hidden = !c.home;
    $('speaker').style.top = c.pad[0] / 2 - 3 + 'px';
    $('cam').style.top = c.pad[0] / 2 - 5 + 'px';
    if (c.home) Object.assign($('home').style, {width: c.home + 'px', height: c.home + 'px', top: c.pad[0] + d.height + (c.pad[2] - c.home) / 2 + 'px'});
  }

  // The cutout, fixed to the screen's top edge in portrait: the island at its rectangle, centred, or
  // the notch. The profiles give no notch size (SPEC §10 has none): this is an iPhone X's, 209 × 30
  // points on its 375-point screen, scaled with the screen's width.
  cutout(d) {
    const $ = this.$;
    const k = d.width / 375;
    const notch = $('notch');
    notch.hidden = d.cutout !== 'notch';
    Object.assign(notch.style, {width: 209 * k + 'px', height: 30 * k + 'px', marginLeft: -104.5 * k + 'px'});
    const island = $('island');
    island.hidden = d.cutout !== 'island' || !d.island;
    if (d.island) {
      const i = d.island;
      Object.assign(island.style, {left: (d.width - i.width) / 2 + 'px', top: i.y + 'px', width: i.width + 'px', height: i.height + 'px', borderRadius: i.height / 2 + 'px'});
    }
    this.notch = d.cutout === 'notch';
    this.island = !island.hidden;
    this.cutoutWidth = this.notch ? 209 * k : this.island ? d.island.width : 0;
  }

  // The app under the status bar, turned with the interface; its content starts below the status
  // bar or the safe area, whichever is lower, where a dashed line marks the safe area's top.
  drawApp(ov, d, sb) {
    const $ = this.$;
    const app = $('app');
    const rotation = ov.rotation;
    const turned = Math.abs(rotation) === 90;
    place(app, {x: 0, y: 0, width: d.width, height: d.height}, rotation);
    if (turned) {
      set(app, 'width', d.height + 'px');
      set(app, 'height', d.width + 'px');
      set(app, 'left', (d.width - d.height) / 2 + 'px');
      set(app, 'top', (d.height - d.width) / 2 + 'px');
    }
    app.classList.toggle('light', sb.style !== 'lightContent');
    const top = safeTop(d, rotation);
    const bar = sb.frame || ov.frame;
    set($('app-top'), 'height', Math.max(top, turned ? bar.width : bar.height) + 'px');
    $('safe').hidden = top <= 0;
    set($('safe'), 'top', top + 'px');
  }

  // The status bar: its own frame, style, and hide or show animation; beside a cutout (upright)
  // each side is centred in its ear.
  drawStatusBar(ov, t, sb) {
    const $ = this.$;
    const rotation = ov.rotation;
    const bar = $('statusbar');
    const barSize = place(bar, sb.frame || ov.frame, rotation);
    const upright = rotation === 0;
    bar.classList.toggle('dark', sb.style !== 'lightContent');
    bar.classList.toggle('notch', this.notch && upright);
    bar.classList.toggle('island', this.island && upright);
    const size = barSize.thick >= 40 ? 15 : 12;
    const ear = this.cutoutWidth && upright ? (barSize.length - this.cutoutWidth) / 2 : 0;
    const barKey = this.cutoutWidth + ' ' + barSize.thick + ' ' + ear + ' ' + new Date().getMinutes();
    if (this.barKey !== barKey) {
      this.barKey = barKey;
      const content = $('sb-content');
      content.innerHTML = statusBarContent(barSize.thick >= 40, size, ear);
      content.style.fontSize = size + 'px';
    }
    set($('sb-content'), 'opacity', String(animated(sb.animation, ['alpha'], sb.alpha, t)));
    set($('sb-content'), 'transform', 'translateY(' + animated(sb.animation, ['offset'], sb.offset, t) + 'px)');
  }

  // The overlay window at its frame and rotation; in it the bar's background (statusBar,
  // fullWidth) or the pill, then the label, subtitle, accessory and progress bar at their frames.
  drawOverlay(ov, t) {
    const $ = this.$;
    const rotation = ov.rotation;
    const overlay = $('overlay');
    const size = place(overlay, ov.frame, rotation);
    const offset = animated(ov.animation, ['contentOffset'], ov.contentOffset, t);
    // Every frame of the content is its resting y + contentOffset: all of them move together.
    const shift = offset - ov.contentOffset;
    set(overlay, 'opacity', String(animated(ov.animation, ['alpha'], ov.alpha, t)));
    const presentation = ov.presentation || 'statusBar';
    // Under a notch only the strip below it shows of a status-bar overlay: the text sits at its bottom there.
    const notched = this.notch && rotation === 0 && presentation === 'statusBar';
    overlay.classList.toggle('notch', notched);
    overlay.classList.toggle('pill', presentation === 'pill');
    const style = overlayStyle(ov);
    const bg = $('overlay-bg');
    bg.hidden = presentation === 'pill';
    set(bg, 'top', offset + 'px');
    set(bg, 'width', size.length + 'px');
    set(bg, 'height', size.thick + 'px');
    set(bg, 'background', style.background);
    const at = (f) => ({x: f.x, y: f.y + shift, width: f.width, height: f.height});
    const pill = $('pill');
    pill.hidden = !ov.pill;
    if (ov.pill) {
      box(pill, at(ov.pill.frame));
      set(pill, 'borderRadius', ov.pill.cornerRadius + 'px');
      set(pill, 'background', style.background);
    }
    drawContent($, ov, at, notched ? 11 : settings.titleSize || 13);
    set($('label'), 'paddingBottom', notched ? '2.5px' : '0px');
  }
}

// ---- layout "bar": the overlay's content alone, across the element ----

// The part of the window the content occupies, at rest (without the animation's offset): the pill,
// or a strip of the window's length down to its bottom edge whose top is as far above the texts
// as the bottom is below them (the status-bar presentation's whole window; the full-width one's
// part below the safe area).
function contentBox(ov) {
  const {length, thick} = windowSize(ov);
  if (ov.pill) {
    const f = ov.pill.frame;
    return {x: f.x, y: f.y - ov.contentOffset, width: f.width, height: f.height};
  }
  const frames = [ov.label, ov.subtitle, ov.accessory].filter(Boolean).map((v) => v.frame);
  if (frames.length === 0) return {x: 0, y: 0, width: length, height: thick};
  const top = Math.min(...frames.map((f) => f.y)) - ov.contentOffset;
  const bottom = Math.max(...frames.map((f) => f.y + f.height)) - ov.contentOffset;
  const y = Math.min(top, Math.max(0, top - (thick - bottom)));
  return {x: 0, y, width: length, height: thick - y};
}

class BarView {
  constructor($) {
    this.$ = $;
    $('pill').hidden = true;
  }

  // The content scaled so that its box is the element's height; texts and accessory keep their
  // places about the middle, the background and the progress bar stretch to the element's width.
  draw(ov, t, room) {
    const $ = this.$;
    const content = contentBox(ov);
    const k = room.height > 0 && content.height > 0 ? room.height / content.height : 1;
    const span = room.width / k;  // the element's width in the overlay's points
    const overlay = $('overlay');
    set(overlay, 'width', span + 'px');
    set(overlay, 'height', content.height + 'px');
    set(overlay, 'transform', 'scale(' + k + ')');
    set(overlay, 'opacity', String(animated(ov.animation, ['alpha'], ov.alpha, t)));
    const offset = animated(ov.animation, ['contentOffset'], ov.contentOffset, t);
    const shift = offset - ov.contentOffset;
    const style = overlayStyle(ov);
    const bg = $('overlay-bg');
    box(bg, {x: 0, y: offset, width: span, height: content.height});
    set(bg, 'background', style.background);
    const middle = (span - content.width) / 2;
    const stretch = span / content.width;
    const at = (f, how) => {
      const y = f.y + shift - content.y;
      if (how === 'progress') return {x: (f.x - content.x) * stretch, y, width: f.width * stretch, height: f.height};
      let x = f.x - content.x + middle, width = f.width;
      // A text is cut at the element's edges (with an ellipsis), never drawn past them.
      if (how === 'text') { const right = Math.min(span, x + width); x = Math.max(0, x); width = Math.max(0, right - x); }
      return {x, y, width, height: f.height};
    };
    drawContent($, ov, at, settings.titleSize || 13);
  }
}

// ---- the measuring font, once per overlayd ----

// Each font URL is one face of the document (a shadow root's @font-face is ignored): the first is
// "overlayd-text", another overlayd's font a family of its own.
const fonts = new Map();
function fontFamily(url) {
  let family = fonts.get(url);
  if (!family) {
    family = fonts.size === 0 ? 'overlayd-text' : 'overlayd-text-' + (fonts.size + 1);
    fonts.set(url, family);
    // Regular only: a bold would be synthesised, and wider than what was measured. `block`: a
    // text is never drawn in a fallback font at other widths.
    const face = new FontFace(family, 'url(' + JSON.stringify(url) + ')', {weight: '400', style: 'normal', display: 'block'});
    document.fonts.add(face);
    face.load().catch(() => { /* the texts fall back to the system font; widths differ a little */ });
  }
  return family;
}

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
  }

  #stopFollowing() {
    if (this.#follower) this.#follower.stop();
    this.#follower = null;
    this.#following = null;
    this.#connection = 'idle';
    this.#drawnVersion = null;
    this.#drawnNow = null;
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
    this.#drawnVersion = ov.version;
    this.#drawnNow = t;
  };
}

// A page may load this module twice (under two URLs, or a copy): the element is defined once.
if (!customElements.get(TAG)) customElements.define(TAG, OverlaydOverlay);
