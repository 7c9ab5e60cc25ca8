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
/* A tap on the device's status bar is the element's "statusbartap" (iOS's scroll-to-top tap). */
#root.device #statusbar{pointer-events:auto;cursor:pointer}
/* What the page puts in the screen (slot "screen"): over the app, under the status bar. */
#screen-content{position:absolute;inset:0;z-index:4;pointer-events:none}
::slotted([slot="screen"]){pointer-events:auto}
/* What VoiceOver would say: read by a screen reader, never drawn. */
#announcement{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
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
/* While a finger holds the overlay its message's actions show under it. */
#overlay.open{overflow:visible}
#actions{position:absolute;left:0;display:flex;justify-content:center;gap:8px;pointer-events:none}
#actions button{pointer-events:auto;font:600 14px/1 var(--ui);color:#fff;background:rgba(44,44,46,.94);border:0;border-radius:14px;padding:10px 16px;box-shadow:0 3px 10px rgba(0,0,0,.35);cursor:pointer;white-space:nowrap;max-width:40%;overflow:hidden;text-overflow:ellipsis}
#root.bar #overlay{position:absolute;left:0;top:0;transform-origin:0 0}
#overlay-bg,#pill{position:absolute;left:0;pointer-events:auto}
#pill{box-shadow:0 3px 10px rgba(0,0,0,.28)}
/* The pill's window ends at its bottom edge: its shadow may fall below (the screen still clips a slide). */
#overlay.pill{overflow:visible}
.text{position:absolute;display:flex;align-items:center;justify-content:center;font-family:var(--text);font-weight:400;font-synthesis:none;font-kerning:normal;white-space:nowrap}
#overlay.notch #label,#overlay.notch #outgoing{align-items:flex-end}
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
  <div id="outgoing" class="text" hidden><span id="outgoing-text"></span></div>
  <div id="subtitle" class="text" hidden><span id="subtitle-text"></span></div>
  <div id="accessory" hidden><div id="spinner" hidden></div><span id="icon" hidden></span></div>
  <div id="bar" hidden><div id="bar-cap-left"></div><div id="bar-fill"></div><div id="bar-cap-right"></div></div>
  <div id="actions" hidden></div>
</div>
<div id="announcement" part="announcement" aria-live="polite"></div>`;

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
      <div id="screen-content"><slot name="screen"></slot></div>
      <div id="statusbar" part="statusbar"><div id="sb-content"></div></div>
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
// The ease-out bounce b(p) of docs/MODEL.md §10 (JDStatusBarNotification's), as the server computes it.
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

function drawText(el, inner, value, at, style, size, lift = 0, clip = null) {
  el.hidden = !value;
  if (!value) return;
  const f = value.frame;
  const b = at({x: f.x, y: f.y + lift, width: f.width, height: f.height}, 'text');
  box(el, b);
  set(el, 'color', style.foreground);
  set(el, 'fontSize', size + 'px');
  text(inner, value.text);
  // During a rise each label shows only inside the content area, as it does in the bar it rises through.
  const above = clip ? Math.max(0, clip.y - b.y) : 0;
  const below = clip ? Math.max(0, b.y + b.height - clip.y - clip.height) : 0;
  set(el, 'clipPath', clip ? 'inset(' + above + 'px 0px ' + below + 'px 0px)' : 'none');
}
// The content area a rise clips both labels to (docs/MODEL.md §14): the pill, else the window's
// bottom Hc (h in statusBar, c in fullWidth); null when no rise runs.
function riseArea(ov) {
  const a = ov.animation;
  if (!a || a.property !== 'labelOffset') return null;
  if (ov.pill) return ov.pill.frame;
  const {length, thick} = windowSize(ov);
  return {x: 0, y: thick - a.from + ov.contentOffset, width: length, height: a.from};
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
function drawContent($, ov, at, titleSize, t) {
  const style = overlayStyle(ov);
  // A rise moves both labels by the change of labelOffset since the snapshot was taken.
  const area = riseArea(ov);
  const lift = area ? animated(ov.animation, ['labelOffset'], 0, t) - animated(ov.animation, ['labelOffset'], 0, ov.now) : 0;
  const clip = area ? at(area, 'area') : null;
  drawText($('label'), $('label-text'), ov.label, at, style, titleSize, lift, clip);
  drawText($('outgoing'), $('outgoing-text'), area ? ov.outgoing : null, at, style, titleSize, lift, clip);
  drawText($('subtitle'), $('subtitle-text'), ov.subtitle, at, style, settings.subtitleSize || 12);
  drawAccessory($, ov, at, style);
  drawProgress($, ov, at, style);
}

