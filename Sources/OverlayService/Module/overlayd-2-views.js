// (overlayd.js, part 2 of 3: the two layouts and the measuring font; OverlaydModule joins the parts.)

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
// The top safe area s' as the interface is turned (docs/MODEL.md §10): s upright; on its side 0 beside a
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
  // the notch. The profiles give no notch size (docs/MODEL.md §10 has none): this is an iPhone X's, 209 × 30
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
    drawContent($, ov, at, notched ? 11 : settings.titleSize || 13, t);
    this.drawActions(ov, size, at);
    set($('label'), 'paddingBottom', notched ? '2.5px' : '0px');
    set($('outgoing'), 'paddingBottom', notched ? '2.5px' : '0px');
  }

  // While a finger holds the overlay (its JSON's `touch`), the message's actions as buttons under
  // the bar or pill, 8 points below it; each is a part "action" whose data-action is its id.
  drawActions(ov, size, at) {
    const $ = this.$;
    const m = ov.message;
    const actions = ov.touch && m && Array.isArray(m.actions) && m.actions.length ? m.actions : null;
    const list = $('actions');
    list.hidden = !actions;
    $('overlay').classList.toggle('open', !!actions);
    if (!actions) return;
    const key = m.id + ' ' + JSON.stringify(actions.map((a) => [a.id, a.label]));
    if (list.dataset.key !== key) {
      list.dataset.key = key;
      list.replaceChildren(...actions.map((a) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.part = 'action';
        b.dataset.action = a.id;
        b.textContent = a.label;
        return b;
      }));
    }
    const bottom = ov.pill ? at(ov.pill.frame).y + ov.pill.frame.height : size.thick;
    set(list, 'top', bottom + 8 + 'px');
    set(list, 'width', size.length + 'px');
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
    drawContent($, ov, at, settings.titleSize || 13, t);
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

