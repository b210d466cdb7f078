// The console's room settings dialog: one labelled input per setting, grouped, with its
// hint; the server's message about a setting is shown beside that setting's input and
// focus moves there, keeping everything typed.

import { strings as s } from './strings.js';
import { ROOM_FIELDS, ROOM_GROUPS, exampleOpensAt, formTexts, roomField } from './room_form.js';
import { $, setText } from './page.js';

const inputId = (key) => `room-field-${key}`;
const inputs = new Map();
let submitting = null;
let result = null;

/** Shows `message` beside `input` in `error` (announced, and named as its description), or clears it. */
export function setFieldError(input, error, message) {
  error.textContent = message;
  if (message) {
    input.setAttribute('aria-invalid', 'true');
  } else {
    input.removeAttribute('aria-invalid');
  }
}

function fieldRow(field) {
  const id = inputId(field.key);
  const text = s.roomFields[field.key];
  const row = document.createElement('div');
  row.className = `field ${field.kind === 'number' || field.kind === 'fraction' ? 'short' : 'long'}`;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = text.label;
  if (!field.required) {
    const optional = document.createElement('span');
    optional.className = 'optional';
    optional.textContent = ` ${s.optional}`;
    label.append(optional);
  }
  const input = document.createElement('input');
  input.id = id;
  input.name = field.key;
  input.type = field.kind === 'number' ? 'number' : 'text';
  if (field.kind === 'number') input.inputMode = 'numeric';
  if (field.kind === 'fraction') input.inputMode = 'decimal';
  input.required = Boolean(field.required);
  input.autocomplete = 'off';
  input.spellcheck = false;
  const hint = document.createElement('p');
  hint.id = `${id}-hint`;
  hint.className = 'hint small';
  hint.textContent = field.kind === 'datetime' ? `${text.hint} ${s.opensAtExample(exampleOpensAt(Date.now()))}` : text.hint;
  const error = document.createElement('p');
  error.id = `${id}-error`;
  error.className = 'field-error';
  error.setAttribute('role', 'alert');
  input.setAttribute('aria-describedby', `${error.id} ${hint.id}`);
  // Typing in a field answers its problem: the message goes until the server says otherwise.
  input.addEventListener('input', () => setFieldError(input, error, ''));
  inputs.set(field.key, { input, error });
  row.append(label, input, error, hint);
  return row;
}

function build() {
  const fields = $('room-form-fields');
  for (const group of ROOM_GROUPS) {
    const fieldset = document.createElement('fieldset');
    const legend = document.createElement('legend');
    legend.textContent = s.roomGroups[group];
    fieldset.append(legend, ...ROOM_FIELDS.filter((field) => field.group === group).map(fieldRow));
    fields.append(fieldset);
  }
  $('room-form-cancel').addEventListener('click', () => $('room-dialog').close());
  $('room-form').addEventListener('submit', onSubmit);
}

function clearProblems() {
  setText('room-form-error', '');
  for (const { input, error } of inputs.values()) setFieldError(input, error, '');
}

/** Puts a problem beside its setting's input and focuses it; one about no setting goes above the form. */
function showProblem({ field, message }) {
  clearProblems();
  const target = field && inputs.get(field);
  if (target && !target.input.readOnly) {
    setFieldError(target.input, target.error, message);
    // The form scrolls only as far as it takes to show the field with its message
    // (scroll-padding keeps it clear of the buttons at the bottom).
    target.input.focus({ preventScroll: true });
    target.input.parentElement.scrollIntoView({ block: 'nearest' });
  } else {
    setText('room-form-error', message);
  }
}

async function onSubmit(event) {
  event.preventDefault();
  const button = $('room-form-submit');
  if (button.disabled) return;
  const texts = Object.fromEntries([...inputs].map(([key, { input }]) => [key, input.value]));
  button.disabled = true;
  try {
    const outcome = await submitting(texts);
    if (outcome.problem) {
      showProblem(outcome.problem);
    } else if (outcome.room) {
      result = outcome.room;
      $('room-dialog').close();
    }
  } finally {
    button.disabled = false;
  }
}

/**
 * Opens the form for a new room (`room` null) or prefilled from `room.config`. On submit
 * it calls `submit(texts)` (the text of every input by setting), which resolves to
 * {room} when saved, {problem: {field, message}} to show, or {} when there is nothing
 * more to do. Resolves, once the dialog closes, to the saved room or null.
 */
export function openRoomDialog(room, submit) {
  if (inputs.size === 0) build();
  const dialog = $('room-dialog');
  const texts = formTexts(room?.config);
  clearProblems();
  for (const [key, { input }] of inputs) {
    input.value = texts[key];
    input.readOnly = Boolean(room && roomField(key).fixed);
  }
  setText('room-form-title', room ? s.editRoomTitle(room.name) : s.newRoomTitle);
  setText('room-form-submit', room ? s.saveRoom : s.createRoom);
  $('room-form-note').hidden = room?.owner !== 'file';
  submitting = submit;
  result = null;
  dialog.showModal();
  dialog.scrollTop = 0;
  inputs.get(room ? 'name' : 'id').input.focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(result), { once: true });
  });
}
