// Browser script of the checkout page (/checkout/assets/checkout.js). It never sees card data: it asks the
// number field to tokenize and receives only {token, brand, network, last4}, then posts the token to Motu. In live
// mode (cfg.widget) the card is typed in the acquirer's widget (Monext's, docs/live.md): Pay asks Motu for a widget
// session, mounts the widget with its token, and once the widget reached its final state posts that token the same way.
export const CHECKOUT_JS = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('checkout-config').textContent);
  var form = document.getElementById('pay-form');
  var button = document.getElementById('pay');
  var alertBox = document.getElementById('alert');
  var emailInput = document.getElementById('email');
  var emailError = document.getElementById('email-error');
  var cardBlock = document.getElementById('card-block');
  var saveBlock = document.getElementById('save-block');
  var numberFrame = document.getElementById('frame-number');
  var dialog = document.getElementById('challenge');
  var challengeFrame = document.getElementById('challenge-frame');
  var busy = false;
  var pendingToken = null;

  function say(message) { alertBox.textContent = message || ''; }
  function setBusy(on) {
    busy = on;
    button.disabled = on;
    button.setAttribute('aria-busy', on ? 'true' : 'false');
    button.textContent = on ? cfg.text.processing : cfg.text.payLabel;
  }
  function selectedSaved() {
    var r = document.querySelector('input[name="card"]:checked');
    return r && r.value !== 'new' ? r.value : null;
  }
  function syncCardChoice() {
    var saved = selectedSaved();
    if (cardBlock) cardBlock.hidden = Boolean(saved);
    if (saveBlock) saveBlock.hidden = Boolean(saved);
  }
  Array.prototype.forEach.call(document.querySelectorAll('input[name="card"]'), function (r) { r.addEventListener('change', syncCardChoice); });
  syncCardChoice();

  function checkEmail() {
    if (!emailInput) return true;
    var ok = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(emailInput.value.trim());
    emailError.textContent = ok ? '' : cfg.text.emailInvalid;
    if (ok) emailInput.removeAttribute('aria-invalid'); else emailInput.setAttribute('aria-invalid', 'true');
    return ok;
  }
  // Errors appear on blur and clear while typing, never on blur: a layout shift between mousedown and mouseup
  // on the Pay button would swallow the click.
  if (emailInput) {
    emailInput.addEventListener('blur', function () { if (emailInput.value && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(emailInput.value.trim())) checkEmail(); });
    emailInput.addEventListener('input', function () { if (emailError.textContent && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(emailInput.value.trim())) checkEmail(); });
  }

  function go(url) { window.location.assign(url); }

  function send(body) {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', '/checkout/' + encodeURIComponent(cfg.sessionId) + '/pay');
    xhr.setRequestHeader('content-type', 'application/json');
    xhr.onload = function () {
      var res = {};
      try { res = JSON.parse(xhr.responseText); } catch (e) { res = {}; }
      if (xhr.status === 200 && res.next === 'redirect') { go(res.url); return; }
      if (xhr.status === 200 && res.next === 'challenge') {
        // In the widget, 3-D Secure happens inside it: not finished yet, the widget calls back again.
        if (cfg.widget) { setBusy(false); return; }
        openChallenge(res.url); return;
      }
      setBusy(false);
      // What the server says is in English for integrations: the customer reads the page's own words, by code.
      if (res.next === 'error') { say(res.code === 'NAVIGATEUR_INCOMPATIBLE' ? cfg.text.browserUnfit : cfg.text.payFailed); return; }
      if (res.code === 'SESSION_EXPIRED') { go('/expired?lang=' + cfg.lang + '&sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
      if (res.code === 'TOO_MANY_ATTEMPTS') { go('/checkout/failed?sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
      if (res.code === 'ACQUIRER_NOT_CONFIGURED') { say(cfg.text.unavailable); return; }
      if (res.details && res.details.field === 'email') { checkEmail(); emailInput && emailInput.focus(); return; }
      say(xhr.status >= 400 ? cfg.text.payFailed : cfg.text.network);
    };
    xhr.onerror = function () { setBusy(false); say(cfg.text.network); };
    xhr.send(JSON.stringify(body));
  }

  var challengeOpen = false;
  function openChallenge(url) {
    challengeOpen = true;
    challengeFrame.src = url + (url.indexOf('?') < 0 ? '?' : '&') + 'lang=' + cfg.lang;
    if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
    // Focus starts on our close button, in this document: Escape then closes the dialog (keys typed inside the
    // bank's frame stay in that frame).
    document.getElementById('challenge-close').focus();
  }
  // Escape or the close button: this attempt is abandoned (the bank page is unloaded, nothing was paid) and the
  // customer is back on the card form, free to pay again.
  function abandonChallenge() {
    if (!challengeOpen) return;
    challengeOpen = false;
    challengeFrame.src = 'about:blank';
    if (dialog.open && typeof dialog.close === 'function') dialog.close(); else dialog.removeAttribute('open');
    setBusy(false);
    say(cfg.text.challengeCancelled);
    if (cardBlock && !cardBlock.hidden && numberFrame) numberFrame.focus(); else button.focus();
  }
  dialog.addEventListener('close', abandonChallenge);
  document.getElementById('challenge-close').addEventListener('click', abandonChallenge);

  window.addEventListener('message', function (e) {
    if (e.origin !== window.location.origin) return;
    var m = e.data || {};
    if (m.source !== 'motu-field') return;
    if (m.type === 'submit') { form.requestSubmit ? form.requestSubmit() : submit(); }
    if (m.type === 'token' && pendingToken) { pendingToken = null; payWith({ token: m.token }); }
    if (m.type === 'error' && pendingToken) {
      if (m.code === 'SESSION_EXPIRED') { go('/expired?lang=' + cfg.lang + '&sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
      pendingToken = null; setBusy(false); say(m.message || cfg.text.fieldsError);
      var target = document.getElementById('frame-' + (m.invalidField || 'number'));
      if (target) target.focus();
    }
  });

  function payWith(source) {
    var body = source;
    if (emailInput) body.email = emailInput.value.trim();
    var save = document.getElementById('save-card');
    if (save && !selectedSaved()) body.saveCard = save.checked;
    send(body);
  }

  var widgetToken = null;
  // The acquirer's widget: a session asked of Motu, then Monext's script mounted on #PaylineWidget with its token.
  function mountWidget() {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', '/acquirer/v1/monext/sessions');
    xhr.setRequestHeader('content-type', 'application/json');
    xhr.onload = function () {
      var res = {};
      try { res = JSON.parse(xhr.responseText); } catch (e) { res = {}; }
      setBusy(false);
      if (xhr.status !== 201 || !res.token) {
        if (res.code === 'SESSION_EXPIRED') { go('/expired?lang=' + cfg.lang + '&sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
        if (res.code === 'TOO_MANY_ATTEMPTS') { go('/checkout/failed?sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
        say(res.code === 'ACQUIRER_NOT_CONFIGURED' ? cfg.text.unavailable : xhr.status >= 400 ? cfg.text.payFailed : cfg.text.network); return;
      }
      widgetToken = res.token;
      var style = document.createElement('link');
      style.rel = 'stylesheet'; style.href = res.styleUrl;
      document.head.appendChild(style);
      var host = document.createElement('div');
      host.id = 'PaylineWidget';
      host.setAttribute('data-token', res.token);
      host.setAttribute('data-template', 'column');
      host.setAttribute('data-auto-init', 'true');
      host.setAttribute('data-embeddedredirectionallowed', 'false');
      host.setAttribute('data-event-finalstatehasbeenreached', 'motuWidgetDone');
      document.getElementById('widget-block').appendChild(host);
      var script = document.createElement('script');
      script.src = res.scriptUrl;
      document.body.appendChild(script);
      button.hidden = true;
    };
    xhr.onerror = function () { setBusy(false); say(cfg.text.network); };
    xhr.send(JSON.stringify({ session: cfg.sessionId }));
  }
  // The widget's final state (paid, refused, or left): Motu reads the outcome from the acquirer with the token.
  window.motuWidgetDone = function () {
    if (!widgetToken || busy) return;
    setBusy(true);
    payWith({ token: widgetToken });
  };

  function submit() {
    if (busy) return;
    say('');
    if (!checkEmail()) { emailInput.focus(); return; }
    setBusy(true);
    var saved = selectedSaved();
    if (saved) { payWith({ paymentMethodId: saved }); return; }
    if (cfg.widget) { if (emailInput) emailInput.readOnly = true; mountWidget(); return; }
    pendingToken = true;
    numberFrame.contentWindow.postMessage({ type: 'tokenize' }, window.location.origin);
  }
  form.addEventListener('submit', function (e) { e.preventDefault(); submit(); });
})();
`;

/** Script of the 3-D Secure return page, running in the challenge frame: takes the whole window to the outcome. */
export const RETURN_JS = String.raw`(function () {
  var url = document.getElementById('next').getAttribute('href');
  if (window.top !== window) window.top.location.assign(url); else window.location.assign(url);
})();
`;
