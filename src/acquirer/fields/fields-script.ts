// The secure fields' browser script, served as /acquirer/v1/assets/fields.js. Plain JS in a string so it
// ships byte-identical from source (tsx) and from dist (tsc does not copy assets).
//
// Each field is its own iframe. The expiry and security-code frames hand their values to the number frame
// over a BroadcastChannel private to the fields' origin (named by a random channel id); the host page never
// sees them. On {type:'tokenize'} from the host, the number frame posts the card, with the session the frames
// are mounted for (data-session), to POST /acquirer/v1/tokens and answers the host with only {token, brand,
// network, last4}. While typing, the number frame reports the brand and the networks it detects ({type:'state', brand, networks, network}: network CB as soon as the first
// six digits are a co-badged BIN), from the same tables the acquirer tokenizes with (CARD_RULES, embedded
// below as JSON: one table, never copied by hand).
import { CARD_RULES } from '../cards.js';

export const FIELDS_JS = String.raw`(function () {
  'use strict';
  var RULES = ${JSON.stringify(CARD_RULES)};
  var root = document.documentElement;
  var field = root.getAttribute('data-field');
  var channelId = root.getAttribute('data-channel');
  var parentOrigin = root.getAttribute('data-origin');
  var mode = root.getAttribute('data-mode');
  var session = root.getAttribute('data-session');
  var msgs = JSON.parse(document.getElementById('motu-messages').textContent);
  var input = document.getElementById('f');
  var errorBox = document.getElementById('err');
  var brandBox = document.getElementById('brand');
  var channel = new BroadcastChannel('motu-fields-' + channelId);
  var peer = { expiry: '', cvc: '' };
  var brand = 'UNKNOWN';
  var networks = [];
  var touched = false;

  function digits(v) { return v.replace(/\D/g, ''); }
  function luhn(n) {
    if (!/^\d{12,19}$/.test(n)) return false;
    var sum = 0, dbl = false;
    for (var i = n.length - 1; i >= 0; i--) {
      var d = n.charCodeAt(i) - 48;
      if (dbl) { d *= 2; if (d > 9) d -= 9; }
      sum += d; dbl = !dbl;
    }
    return sum % 10 === 0;
  }
  function detectBrand(n) {
    for (var i = 0; i < RULES.brands.length; i++) if (new RegExp(RULES.brands[i][1]).test(n)) return RULES.brands[i][0];
    return 'UNKNOWN';
  }
  // The networks the number carries so far: none until the brand is known, CB first for a co-badged BIN.
  function networksOf(n, b) {
    if (b === 'UNKNOWN') return [];
    for (var i = 0; i < RULES.cbBins.length; i++) if (n.indexOf(RULES.cbBins[i]) === 0) return ['CB', b];
    return [b];
  }
  function chooseNetwork(list) { return list.indexOf('CB') >= 0 ? 'CB' : list[0] || null; }
  function parseExpiry(v) {
    var m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(v);
    if (!m) return null;
    var month = Number(m[1]), year = Number(m[2]);
    if (year < 100) year += 2000;
    if (month < 1 || month > 12) return null;
    return { month: month, year: year };
  }
  function expiryFuture(e) {
    var now = new Date();
    return e.year * 12 + e.month - 1 >= now.getFullYear() * 12 + now.getMonth() && e.year <= now.getFullYear() + 30;
  }

  // Validation of this frame's own value: returns '' when valid, else a message key.
  function check(value) {
    if (field === 'number') {
      var n = digits(value);
      if (!n) return 'required';
      if (n.length < 12 || !luhn(n)) return 'invalidNumber';
      return '';
    }
    if (field === 'expiry') {
      if (!value.trim()) return 'required';
      var e = parseExpiry(value);
      if (!e) return 'invalidExpiry';
      if (!expiryFuture(e)) return 'pastExpiry';
      return '';
    }
    var c = digits(value);
    if (!c) return 'required';
    var len = brand === 'AMEX' ? 4 : 3;
    if (c.length !== len) return 'invalidCvc';
    return '';
  }
  function complete(value) {
    if (field === 'number') { var n = digits(value); return n.length >= (brand === 'AMEX' ? 15 : 16) && luhn(n); }
    return check(value) === '';
  }

  function show(key) {
    errorBox.textContent = key ? msgs[key] : '';
    if (key) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
  }
  function toParent(message) {
    message.source = 'motu-field';
    message.field = field;
    window.parent.postMessage(message, parentOrigin);
  }
  function report() {
    var error = check(input.value);
    var state = { type: 'state', empty: input.value === '', complete: complete(input.value), valid: error === '' };
    if (field === 'number') { state.brand = brand; state.networks = networks; state.network = chooseNetwork(networks); }
    toParent(state);
  }

  function format(value) {
    if (field === 'number') {
      var n = digits(value).slice(0, 19);
      var groups = brand === 'AMEX' ? [4, 6, 5] : [4, 4, 4, 4, 3];
      var out = [], i = 0;
      for (var g = 0; g < groups.length && i < n.length; g++) { out.push(n.slice(i, i + groups[g])); i += groups[g]; }
      return out.join(' ');
    }
    if (field === 'expiry') {
      var d = digits(value).slice(0, 4);
      if (d.length === 1 && Number(d) > 1) d = '0' + d;
      return d.length > 2 ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
    }
    return digits(value).slice(0, 4);
  }

  input.addEventListener('input', function () {
    var before = input.value;
    if (field === 'number') {
      brand = detectBrand(digits(before));
      networks = networksOf(digits(before), brand);
      brandBox.textContent = networks.join(' · ');
      // The number's room ends where the badge begins, whatever its length (CB · MASTERCARD is long): never under it.
      input.style.paddingRight = brandBox.textContent ? (brandBox.offsetWidth + 20) + 'px' : '';
      channel.postMessage({ type: 'brand', brand: brand });
    }
    var after = format(before);
    if (after !== before) input.value = after;
    if (field !== 'number') channel.postMessage({ type: 'value', field: field, value: input.value });
    if (touched) show(check(input.value));
    report();
  });
  input.addEventListener('blur', function () {
    if (input.value !== '') touched = true;
    if (touched) show(check(input.value));
    report();
  });
  input.addEventListener('focus', function () { toParent({ type: 'focus' }); });
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); toParent({ type: 'submit' }); }
  });

  channel.onmessage = function (e) {
    var m = e.data || {};
    if (m.type === 'value' && field === 'number') peer[m.field] = m.value;
    if (m.type === 'brand' && field === 'cvc') brand = m.brand;
    if (m.type === 'validate') { touched = true; show(check(input.value)); }
    if (m.type === 'clear') { input.value = ''; touched = false; show(''); report(); }
  };

  window.addEventListener('message', function (e) {
    if (e.source !== window.parent || e.origin !== parentOrigin) return;
    var m = e.data || {};
    if (m.type === 'focus') input.focus();
    if (m.type === 'clear') { channel.postMessage({ type: 'clear' }); input.value = ''; touched = false; show(''); report(); }
    if (m.type === 'tokenize' && field === 'number') tokenize();
  });

  function tokenize() {
    channel.postMessage({ type: 'validate' });
    touched = true;
    var numberError = check(input.value);
    show(numberError);
    var expiry = parseExpiry(peer.expiry);
    var cvc = digits(peer.cvc);
    var invalid = numberError ? 'number' : !expiry || !expiryFuture(expiry) ? 'expiry' : cvc.length !== (brand === 'AMEX' ? 4 : 3) ? 'cvc' : null;
    if (invalid) { toParent({ type: 'error', code: 'INVALID_CARD', invalidField: invalid, message: msgs.incomplete }); return; }
    var xhr = new XMLHttpRequest();
    xhr.open('POST', '/acquirer/v1/tokens');
    xhr.setRequestHeader('content-type', 'application/json');
    xhr.onload = function () {
      var body = {};
      try { body = JSON.parse(xhr.responseText); } catch (err) { body = {}; }
      if (xhr.status === 201) {
        toParent({ type: 'token', token: body.token, brand: body.brand, network: body.network, last4: body.last4 });
      } else {
        var f = body.details && body.details.field;
        if (f === 'number') show('invalidNumber');
        toParent({ type: 'error', code: body.code || 'ERROR', invalidField: f === 'expMonth' || f === 'expYear' ? 'expiry' : f || null, message: body.code === 'ACQUIRER_NOT_CONFIGURED' ? msgs.unavailable : body.code === 'TOO_MANY_ATTEMPTS' ? msgs.tooMany : body.code === 'SESSION_EXPIRED' || body.code === 'NOT_FOUND' ? msgs.expired : msgs.incomplete });
      }
    };
    xhr.onerror = function () { toParent({ type: 'error', code: 'NETWORK_ERROR', message: msgs.network }); };
    xhr.send(JSON.stringify({ mode: mode, number: digits(input.value), expMonth: expiry.month, expYear: expiry.year, cvc: cvc, session: session }));
  }

  report();
  toParent({ type: 'ready' });
})();
`;
