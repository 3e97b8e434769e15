// The console's only script (served from our origin; the CSP allows no inline script). It shows
// times in the operator's time zone, fills the time-zone offset of the task search, and asks for
// confirmation before destructive forms. It reads and writes text only (no HTML).
(function () {
  'use strict';
  var fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  document.querySelectorAll('time[datetime]').forEach(function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (!isNaN(d.getTime())) {
      el.title = el.getAttribute('datetime');
      el.textContent = fmt.format(d);
    }
  });
  var zone = document.getElementById('tz-name');
  if (zone) zone.textContent = Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';
  // datetime-local inputs are in the browser's zone: send its offset so the server reads them right.
  document.querySelectorAll('input.tz-offset').forEach(function (el) {
    el.value = String(new Date().getTimezoneOffset());
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (ev) {
      if (!window.confirm(form.getAttribute('data-confirm'))) ev.preventDefault();
    });
  });
})();
