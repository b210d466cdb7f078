// Small DOM helpers shared by the pages: strings, branding, showing and hiding.

import { strings } from './strings.js';
import { contrastText } from './format.js';

export const $ = (id) => document.getElementById(id);

/** Fills every [data-s] element with its string. */
export function applyStrings(root = document) {
  for (const el of root.querySelectorAll('[data-s]')) el.textContent = strings[el.dataset.s];
}

export function show(id, visible = true) {
  $(id).hidden = !visible;
}

export function setText(id, text) {
  $(id).textContent = text;
}

/** A room's branding: its name, its logo, and its accent colour with a readable text colour on it. */
export function applyBranding({ name, logo_url: logoUrl, accent_colour: accent } = {}) {
  if (name) setText('brand-name', name);
  if (logoUrl) {
    // The name is written beside the logo, so the image itself says nothing more (alt="").
    const logo = $('logo');
    logo.addEventListener('load', () => show('logo'), { once: true });
    logo.src = logoUrl;
  }
  const onAccent = contrastText(accent);
  if (onAccent) {
    const root = document.documentElement.style;
    root.setProperty('--accent', accent);
    root.setProperty('--on-accent', onAccent);
  }
}
