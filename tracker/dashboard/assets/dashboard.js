// Progressive extras for the dashboard. Every page works without this file: it adds a copy
// button to secrets shown once, asks before destructive forms, and moves focus to a form's
// error summary so keyboard and screen-reader users land on it.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const target = document.getElementById(button.dataset.copy);
    if (!target) continue;
    const status = button.parentElement.querySelector('.copy-status');
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(target.value);
        if (status) status.textContent = 'Copied to the clipboard.';
      } catch {
        // No clipboard access (plain http, or refused): select it for the user to copy.
        target.focus();
        target.select();
        if (status) status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
      }
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  const summary = document.querySelector('.error-summary');
  if (summary) summary.focus();
});
