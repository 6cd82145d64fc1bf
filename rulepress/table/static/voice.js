// Voice and webcam between the seats of a room: a WebRTC mesh, one peer connection per
// other seat. The server only relays the signalling (offers, answers, ICE candidates) over
// the room's WebSocket as `signal` messages; media flows browser to browser. Standard APIs
// only (RTCPeerConnection, transceivers, replaceTrack, getUserMedia): Chromium and Firefox.
//
// Loaded after table.js, it hears every message of the page's socket through
// `window.rulepressTable` and sends its own; it draws its controls and videos into `#voice`
// (made at the end of <body> when the page has none). Spectators get nothing.
//
// Every connection carries one audio and one video transceiver from the start, so turning
// the microphone or camera on later is a `replaceTrack`, never a new negotiation.
//
// Nothing connects before this seat's player turns the microphone or camera on: until then no
// peer connection exists, and another seat's offers and addresses are not even looked at (a
// page that has not agreed to a call never probes an address someone else chose).
(function (global) {
  "use strict";

  const STRINGS = {
    en: {
      voice: "Voice", mic_on: "Microphone on", mic_off: "Microphone off", mute: "Mute",
      unmute: "Unmute", camera_on: "Camera on", camera_off: "Camera off", you: "you",
      denied: "no access to the microphone or camera", listen: "click to hear the table",
    },
    ru: {
      voice: "Голос", mic_on: "Включить микрофон", mic_off: "Выключить микрофон", mute: "Выключить звук",
      unmute: "Включить звук", camera_on: "Включить камеру", camera_off: "Выключить камеру", you: "вы",
      denied: "нет доступа к микрофону или камере", listen: "нажмите, чтобы слышать стол",
    },
  };
  // Seats are compared as `p2` < `p10`: the smaller one makes the offer (the shared plan).
  const seatOrder = (a, b) => String(a).localeCompare(String(b), "en", { numeric: true });
  const SIGNALS_PER_SECOND = 8;   // the server closes a socket over 20 messages/s: moves need room too
  const ICE_BATCH_MS = 120;       // candidates found together travel in one message
  const OFFER_PATIENCE_MS = 4000; // a `hello` while our offer is this fresh waits for its answer
  const RETRY_MS = 2000;          // a failed link is started again at most this often
  const ICE_WAITING = 100;        // candidates kept for a description still to come (another seat's word)
  // An offer (or a `hello` asking for one) can be lost on the way: the server drops a seat's
  // signal over its rate, from any tab of that seat. One left unanswered this long is made
  // again, a few times at most, so a lost message never leaves a call waiting for good.
  const ANSWER_WAIT_MS = 3000;
  const ASK_AGAIN = 4;            // offers (or hellos) made again to a seat before giving up until it changes

  function icePolicyOfPage() {
    // <meta name="rulepress-ice-policy" content="relay">: media only through the page's TURN
    // servers, so no player learns another's address (docs/table.md, "Voice and webcam").
    const meta = document.querySelector('meta[name="rulepress-ice-policy"]');
    return meta && meta.content === "relay" ? "relay" : "all";
  }

  function iceServersOfPage() {
    // An operator adds STUN/TURN for players behind NAT with
    // <meta name="rulepress-ice-servers" content='[{"urls":"stun:..."}]'>; none on loopback or a LAN.
    const meta = document.querySelector('meta[name="rulepress-ice-servers"]');
    if (!meta) return [];
    try {
      const list = JSON.parse(meta.content);
      return Array.isArray(list) ? list : [];
    } catch (e) {
      return [];
    }
  }

  function randomId() {
    const a = new Uint32Array(2);
    crypto.getRandomValues(a);
    return a[0].toString(36) + a[1].toString(36);
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  class Voice {
    constructor({ send, mount, iceServers, lang }) {
      this.send = send;
      this.iceServers = iceServers || iceServersOfPage();
      this.icePolicy = icePolicyOfPage();
      this.consented = false;     // the player turned the microphone or camera on at least once
      this.lang = lang || null;  // else the page's, which its language button changes
      this.you = null;
      this.names = {};
      this.peers = new Map();     // seat -> {pc, sid, audio, video, stream, tile, ice[], iceTimer, offeredAt}
      this.present = [];          // seats connected to the room, from the last `peers` message
      this.mic = null;            // local audio track (enabled = not muted)
      this.camera = null;         // local video track (stopped and dropped when turned off)
      this.outbox = [];
      this.drain = null;
      this.mount = mount || document.getElementById("voice");
      this.blocked = false;       // a remote sound the browser would not play before a click
      this.retried = new Map();   // seat -> when its link was last started again after a failure
      this.retries = new Map();   // seat -> the timer that will start it again
      this.asked = new Map();     // seat -> offers or hellos made again to it, unanswered (ASK_AGAIN)
      this.helloTimers = new Map();  // seat -> the timer that will say hello again
      global.addEventListener("pagehide", () => this.leave());
      new MutationObserver(() => this.drawControls()).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
      document.addEventListener("click", () => this.unblock(), true);
    }

    get t() {
      return STRINGS[(this.lang || document.documentElement.lang || "en").slice(0, 2)] || STRINGS.en;
    }

    // ---- messages from the server --------------------------------------------------

    handle(msg) {
      if (!msg || typeof msg !== "object") return false;
      if (msg.type === "table") {
        const was = this.you;
        this.you = msg.you ?? null;
        for (const s of msg.seats || []) this.names[s.seat] = s.name || s.seat;
        this.taken = new Set((msg.seats || []).filter((s) => s.name || s.bot).map((s) => s.seat));
        for (const seat of [...this.peers.keys()]) if (!this.taken.has(seat)) this.drop(seat);
        this.draw();
        for (const [seat, p] of this.peers) this.label(seat, p);
        if (was === null && this.you !== null && this.present.length) this.onPeers(this.present);
        return false;  // the table page draws the rest
      }
      if (msg.type === "peers") {
        if (msg.freed) {  // the host freed this seat: every call ends
          this.leave();
          this.present = [];
          return true;
        }
        this.onPeers(Array.isArray(msg.seats) ? msg.seats.map(String) : []);
        return true;
      }
      if (msg.type === "signal") {
        if (this.you !== null && msg.data && typeof msg.data === "object") this.onSignal(String(msg.from), msg.data);
        return true;
      }
      return false;
    }

    onPeers(seats) {
      this.present = seats;
      if (this.you === null || !this.consented) return;
      for (const [seat, p] of this.peers) {
        // a link that still carries media outlives a server restart: keep it (but not a
        // seat the host freed: the table says it is nobody's now)
        const freed = this.taken && !this.taken.has(seat);
        if (!seats.includes(seat) && (freed || p.pc.connectionState !== "connected")) this.drop(seat);
      }
      for (const seat of seats) {
        if (seat === this.you || this.peers.has(seat)) continue;
        if (seatOrder(this.you, seat) < 0) this.offer(seat);
        else this.hello(seat, this.joining);  // "I have no link with you: offer me one"
      }
    }

    async onSignal(from, data) {
      if (from === this.you || !this.consented) return;  // no call before this player agrees to one
      const p = this.peers.get(from);
      try {
        if (data.kind === "hello") {
          if (seatOrder(this.you, from) >= 0) return;
          // (a `joined` hello: that page has just agreed to the call and looked at nothing before)
          const waiting = !data.joined && p && p.pc.signalingState === "have-local-offer" && Date.now() - p.offeredAt < OFFER_PATIENCE_MS;
          if (!waiting) this.offer(from);
        } else if (data.kind === "offer" && typeof data.sdp === "string" && typeof data.sid === "string") {
          if (seatOrder(from, this.you) >= 0) return;  // only the smaller seat offers
          await this.answer(from, data.sid, data.sdp);
        } else if (data.kind === "answer" && p && p.sid === data.sid && typeof data.sdp === "string") {
          if (p.pc.signalingState !== "have-local-offer") return;  // a second tab of that seat answered too
          clearTimeout(p.answerTimer);
          this.asked.delete(from);
          await p.pc.setRemoteDescription({ type: "answer", sdp: data.sdp });
          await this.flushIce(p);
        } else if (data.kind === "ice" && p && p.sid === data.sid && Array.isArray(data.candidates)) {
          const fresh = data.candidates.filter((c) => c && typeof c === "object");
          p.remoteIce.push(...fresh.slice(0, Math.max(0, ICE_WAITING - p.remoteIce.length)));
          await this.flushIce(p);
        } else if (data.kind === "bye" && p && (!data.sid || p.sid === data.sid)) {
          this.drop(from);
        } else if (data.kind === "camera" && p && typeof data.on === "boolean") {
          p.cameraOff = !data.on;  // a stopped camera leaves its last frame: the tile blanks instead
          this.tileState(from, p);
        }
      } catch (e) {
        this.failed(from, p, e);  // an answer or a candidate this link could not take
      }
    }

    // A link that failed starts again from the smaller seat, unless a newer link has taken its
    // place already; at most once every RETRY_MS, so two pages that cannot agree do not spin.
    failed(seat, p, e) {
      console.warn("voice:", seat, e && e.message);
      if (!p || this.peers.get(seat) !== p) return;
      this.drop(seat);
      const wait = Math.max(0, RETRY_MS - (Date.now() - (this.retried.get(seat) || 0)));
      clearTimeout(this.retries.get(seat));
      this.retries.set(seat, setTimeout(() => {
        if (this.peers.has(seat) || !this.present.includes(seat)) return;  // linked again, or gone
        this.retried.set(seat, Date.now());
        if (seatOrder(this.you, seat) < 0) this.offer(seat);
        else this.hello(seat);
      }, wait));
    }

    // ---- peer connections --------------------------------------------------------------

    connection(seat, sid) {
      this.drop(seat);
      const pc = new RTCPeerConnection({ iceServers: this.iceServers, iceTransportPolicy: this.icePolicy });
      const p = { pc, sid, stream: new MediaStream(), ice: [], remoteIce: [], iceTimer: null, offeredAt: 0, answerTimer: null,
                  audio: null, video: null, tile: null };
      this.peers.set(seat, p);
      pc.onicecandidate = (e) => {
        if (!e.candidate) return;
        p.ice.push(e.candidate.toJSON());
        if (!p.iceTimer) p.iceTimer = setTimeout(() => {
          p.iceTimer = null;
          if (this.peers.get(seat) === p && p.ice.length) this.signal(seat, { kind: "ice", sid, candidates: p.ice.splice(0) });
        }, ICE_BATCH_MS);
      };
      pc.ontrack = (e) => {
        if (!p.stream.getTracks().includes(e.track)) p.stream.addTrack(e.track);
        e.track.onunmute = () => this.tileState(seat, p);
        e.track.onmute = () => this.tileState(seat, p);
        e.track.onended = () => this.tileState(seat, p);
        this.tileState(seat, p);
      };
      pc.onconnectionstatechange = () => {
        if (this.peers.get(seat) !== p) return;
        const s = pc.connectionState;
        if (s === "failed" || (s === "disconnected" && !this.present.includes(seat))) {
          this.drop(seat);
          if (s === "failed" && this.present.includes(seat)) {  // try again, from the smaller seat as ever
            if (seatOrder(this.you, seat) < 0) this.offer(seat);
            else this.hello(seat);
          }
        }
        if (s === "connected") this.asked.delete(seat);
        this.tileState(seat, p);
      };
      this.tile(seat, p);
      return p;
    }

    async offer(seat) {
      const p = this.connection(seat, randomId());
      try {
        p.audio = p.pc.addTransceiver(this.mic || "audio", { direction: "sendrecv", streams: [] });
        p.video = p.pc.addTransceiver(this.camera || "video", { direction: "sendrecv", streams: [] });
        const offer = await p.pc.createOffer();
        if (this.peers.get(seat) !== p) return;
        await p.pc.setLocalDescription(offer);
        p.offeredAt = Date.now();
        this.signal(seat, { kind: "offer", sid: p.sid, sdp: p.pc.localDescription.sdp });
        p.answerTimer = setTimeout(() => this.unanswered(seat, p), ANSWER_WAIT_MS);
      } catch (e) {
        console.warn("voice: no offer to", seat, e && e.message);
        if (this.peers.get(seat) === p) this.drop(seat);  // not a newer link that took its place
      }
    }

    // Our offer got no answer (it, or the answer, was lost): offer again, ASK_AGAIN times at most.
    unanswered(seat, p) {
      if (this.peers.get(seat) !== p || p.pc.signalingState !== "have-local-offer") return;
      if (!this.askAgain(seat)) return;
      this.offer(seat);
    }

    // The larger seat asks the smaller for an offer; asked again while none comes.
    hello(seat, joined) {
      this.signal(seat, joined ? { kind: "hello", joined: true } : { kind: "hello" });
      clearTimeout(this.helloTimers.get(seat));
      this.helloTimers.set(seat, setTimeout(() => {
        this.helloTimers.delete(seat);
        if (this.peers.has(seat) || !this.present.includes(seat) || !this.consented) return;  // offered, or gone
        if (this.askAgain(seat)) this.hello(seat);
      }, ANSWER_WAIT_MS));
    }

    askAgain(seat) {
      const n = (this.asked.get(seat) || 0) + 1;
      if (n > ASK_AGAIN) {
        console.warn("voice: no answer from", seat);
        return false;
      }
      this.asked.set(seat, n);
      return true;
    }

    async answer(seat, sid, sdp) {
      const p = this.connection(seat, sid);
      try {
        await p.pc.setRemoteDescription({ type: "offer", sdp });
        for (const tr of p.pc.getTransceivers()) {
          const kind = tr.receiver.track && tr.receiver.track.kind;
          if (kind === "audio" && !p.audio) p.audio = tr;
          else if (kind === "video" && !p.video) p.video = tr;
        }
        for (const [tr, track] of [[p.audio, this.mic], [p.video, this.camera]]) {
          if (!tr) continue;
          tr.direction = "sendrecv";
          if (track) await tr.sender.replaceTrack(track);
        }
        const answer = await p.pc.createAnswer();
        if (this.peers.get(seat) !== p) return;
        await p.pc.setLocalDescription(answer);
        this.signal(seat, { kind: "answer", sid, sdp: p.pc.localDescription.sdp });
        await this.flushIce(p);
      } catch (e) {
        this.failed(seat, p, e);  // an offer this browser cannot take: ask for another
      }
    }

    async flushIce(p) {
      if (!p.pc.remoteDescription) return;  // candidates wait for the description they belong to
      for (const c of p.remoteIce.splice(0)) {
        try {
          await p.pc.addIceCandidate(c);
        } catch (e) {
          console.warn("voice: candidate refused", e && e.message);
        }
      }
    }

    drop(seat) {
      const p = this.peers.get(seat);
      if (!p) return;
      this.peers.delete(seat);
      clearTimeout(p.iceTimer);
      clearTimeout(p.answerTimer);
      p.pc.onconnectionstatechange = null;
      p.pc.close();
      if (p.tile) p.tile.remove();
    }

    leave() {
      for (const [seat, p] of this.peers) this.signal(seat, { kind: "bye", sid: p.sid }, true);
      for (const seat of [...this.peers.keys()]) this.drop(seat);
    }

    // Signals go out at a steady pace (the server's flood limit counts every message).
    signal(to, data, now) {
      this.outbox.push({ type: "signal", to, data });
      if (now) {
        while (this.outbox.length) this.send(this.outbox.shift());
        return;
      }
      if (this.drain) return;
      const step = () => {
        if (!this.outbox.length) {
          this.drain = null;
          return;
        }
        this.send(this.outbox.shift());
        this.drain = setTimeout(step, 1000 / SIGNALS_PER_SECOND);
      };
      step();
    }

    // ---- microphone and camera ------------------------------------------------------

    // The first device turned on is the player's word that they want the call.
    agree() {
      if (this.consented) return;
      this.consented = true;
      this.asked.clear();
      this.joining = true;
      this.onPeers(this.present);
      this.joining = false;
    }

    async toggleMic() {
      if (this.mic) {
        this.mic.enabled = !this.mic.enabled;
      } else {
        const track = await this.capture({ audio: true });
        if (!track) return;
        this.mic = track;
        await this.attach("audio", track);
        this.agree();
      }
      this.drawControls();
    }

    async toggleCamera() {
      if (this.camera) {
        const track = this.camera;
        this.camera = null;
        await this.attach("video", null);
        track.stop();  // the camera's light goes off, not just a black picture
        for (const seat of this.peers.keys()) this.signal(seat, { kind: "camera", on: false });
      } else {
        const track = await this.capture({ video: { width: { ideal: 640 }, height: { ideal: 360 } } });
        if (!track) return;
        this.camera = track;
        track.onended = () => {
          if (this.camera === track) this.toggleCamera();
        };
        await this.attach("video", track);
        for (const seat of this.peers.keys()) this.signal(seat, { kind: "camera", on: true });
        this.agree();
      }
      this.drawControls();
      this.drawSelf();
    }

    async capture(constraints) {
      try {
        const stream = await navigator.mediaDevices.getUserMedia(constraints);
        this.note("");
        return stream.getTracks()[0] || null;
      } catch (e) {
        this.note(`${this.t.denied} (${e && e.name})`);
        return null;
      }
    }

    async attach(kind, track) {
      for (const p of this.peers.values()) {
        const tr = kind === "audio" ? p.audio : p.video;
        if (tr) await tr.sender.replaceTrack(track).catch((e) => console.warn("voice:", e && e.message));
      }
    }

    unblock() {
      if (!this.blocked) return;
      this.blocked = false;
      for (const p of this.peers.values()) if (p.tile) this.play(p.tile.querySelector("video"));
      this.note("");
    }

    play(video) {
      if (!video || !video.srcObject) return;
      video.play().catch(() => {
        this.blocked = true;  // the browser wants a click before the table is heard
        this.note(this.t.listen);
      });
    }

    // ---- drawing -----------------------------------------------------------------------

    draw() {
      if (this.you === null) {
        if (this.mount) this.mount.hidden = true;
        return;
      }
      if (!this.mount) {
        this.mount = el("section", { id: "voice" });
        document.body.appendChild(this.mount);
      }
      if (this.mount.dataset.ready) return;
      this.mount.dataset.ready = "1";
      this.mount.hidden = false;
      this.mount.classList.add("voice");
      this.heading = el("h2", {}, this.t.voice);
      this.mount.append(this.heading);
      const bar = el("div", { class: "voice-controls" });
      this.micButton = el("button", { type: "button", "data-voice": "mic" });
      this.cameraButton = el("button", { type: "button", "data-voice": "camera" });
      this.micButton.onclick = () => this.toggleMic();
      this.cameraButton.onclick = () => this.toggleCamera();
      this.noteLine = el("span", { class: "voice-note", role: "status" });
      bar.append(this.micButton, this.cameraButton, this.noteLine);
      this.grid = el("div", { class: "voice-grid" });
      this.mount.append(bar, this.grid);
      this.drawControls();
    }

    drawControls() {
      if (!this.micButton) return;
      const t = this.t;
      this.heading.textContent = t.voice;
      const self = this.grid.querySelector(".voice-tile.self figcaption");
      if (self) self.textContent = t.you;
      this.micButton.textContent = !this.mic ? t.mic_on : this.mic.enabled ? t.mute : t.unmute;
      this.micButton.setAttribute("aria-pressed", String(!!this.mic && this.mic.enabled));
      this.cameraButton.textContent = this.camera ? t.camera_off : t.camera_on;
      this.cameraButton.setAttribute("aria-pressed", String(!!this.camera));
    }

    drawSelf() {
      if (!this.grid) return;
      let tile = this.grid.querySelector(".voice-tile.self");
      if (!this.camera) {
        if (tile) tile.remove();
        return;
      }
      if (!tile) {
        tile = el("figure", { class: "voice-tile self live" });
        const video = el("video", { autoplay: "", playsinline: "", "data-self": "" });
        video.muted = true;  // never hear oneself
        tile.append(video, el("figcaption", {}, this.t.you));
        this.grid.prepend(tile);
      }
      const video = tile.querySelector("video");
      video.srcObject = new MediaStream([this.camera]);
      video.play().catch(() => {});
    }

    note(text) {
      if (this.noteLine) this.noteLine.textContent = text;
    }

    tile(seat, p) {
      if (!this.grid) this.draw();
      if (!this.grid) return;
      p.tile = el("figure", { class: "voice-tile", "data-seat": seat });
      const video = el("video", { autoplay: "", playsinline: "", "data-seat": seat });
      video.srcObject = p.stream;
      p.tile.append(video, el("figcaption"));
      this.grid.append(p.tile);
      this.label(seat, p);
    }

    label(seat, p) {
      if (p.tile) p.tile.querySelector("figcaption").textContent = this.names[seat] || seat;
    }

    // A tile shows its video once frames arrive (a muted track has none yet) and plays the
    // seat's voice either way.
    tileState(seat, p) {
      if (!p.tile) return;
      const live = (kind) => p.stream.getTracks().some((t) => t.kind === kind && t.readyState === "live" && !t.muted);
      p.tile.classList.toggle("live", live("video") && !p.cameraOff);
      p.tile.classList.toggle("audible", live("audio"));  // its microphone reaches us
      p.tile.dataset.state = p.pc.connectionState;
      const video = p.tile.querySelector("video");
      if (video.paused) this.play(video);
    }
  }

  global.RulepressVoice = {
    create: (options) => new Voice(options || {}),
    seatOrder,
  };

  // On the table page (table.js): a seat's page talks; spectators and the OBS page do not.
  const table = global.rulepressTable;
  if (table && table.mode === "play") {
    const voice = new Voice({ send: (message) => table.send(message) });
    table.onMessage((msg) => voice.handle(msg));
    global.rulepressVoice = voice;
  }
})(window);
