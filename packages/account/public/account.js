// The account pages' only script (served from our origin; the CSP allows no inline script): local
// times, copy buttons for a new key or secret, confirmation of destructive forms. Pages work
// without it. It reads and writes text only (no HTML).
(function () {
  'use strict';
  var fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  document.querySelectorAll('time[datetime]').forEach(function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (!isNaN(d.getTime())) {
      el.title = el.getAttribute('datetime');
      el.textContent = fmt.format(d);
    }
  });
  var zone = document.getElementById('tz-name');
  if (zone) zone.textContent = Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';
  document.querySelectorAll('button.copy[data-copy]').forEach(function (btn) {
    btn.addEventListener('click', function () {
      var el = document.getElementById(btn.getAttribute('data-copy'));
      if (!el || !navigator.clipboard) return;
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        btn.textContent = 'Copied';
      });
    });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (ev) {
      if (!window.confirm(form.getAttribute('data-confirm'))) ev.preventDefault();
    });
  });
})();
