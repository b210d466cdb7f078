// Every word the pages show, in one place so that a venue can translate them: change
// `locale` (numbers and times follow it) and the texts below. Functions receive
// numbers already formatted, plus the raw count where a plural depends on it.
// Elements with data-s="key" get strings[key] as their text when the page starts.

export const locale = 'en';

const plural = (count, one, many) => (count === 1 ? one : many);

export const strings = {
  // Shared
  loading: 'Loading…',
  skipToContent: 'Skip to content',
  poweredBy: 'A fair waiting room by Foyer',
  verifyLink: 'How places are given, and how to check them',
  errorTitle: 'Something went wrong',
  errorLead: (message) => `The waiting room answered: ${message}`,
  tryAgain: 'Try again',
  offline: (when) => `Connection lost. Trying again ${when}; you keep your place.`,
  offlineNow: 'You are offline. You keep your place; this page carries on when the connection returns.',
  busy: (when) => `The waiting room is busy. Trying again ${when}; you keep your place.`,
  inSeconds: (seconds) => `in ${seconds} ${plural(seconds, 'second', 'seconds')}`,
  unknownRoomTitle: 'No such waiting room',
  unknownRoomLead: 'Check the address you were given.',

  // Waiting room
  roomTitle: 'Waiting room',
  joiningTitle: 'Joining the queue',
  joiningLead: 'Your browser is doing a short calculation that keeps bots from crowding the queue. It takes a few seconds.',
  workLabel: 'Calculation progress',
  proofRetry: 'The calculation was not accepted; starting a fresh one.',
  priceRose: 'Many visitors from your network just now: one more calculation, a little longer.',
  lobbyTitle: 'You are in the lobby',
  lobbyLead: (time) =>
    `At ${time} everyone in the lobby gets a place by a lottery that anyone can check. ` +
    'Arriving earlier gives no advantage. Keep this page open, or come back on this device before then.',
  countdownLabel: 'The draw starts in',
  countdownDone: 'any moment now',
  drawingTitle: 'The draw is under way',
  drawingLead: 'The lobby is closed and places are being drawn. Yours appears here shortly; keep this page open.',
  drawn: (number, size) => (size == null ? `Drawn: number ${number}` : `Drawn: number ${number} of ${size}`),
  waitingTitle: 'You are in the queue',
  waitingLead: 'Keep this page open: when it is your turn it takes you to the site by itself.',
  placeLabel: 'Your number',
  aheadLabel: 'People ahead of you',
  waitLabel: 'Expected wait',
  progressLabel: 'Your progress through the queue',
  around: (time) => `around ${time}`,
  announceWaiting: (ahead, count, duration) =>
    `${ahead} ${plural(count, 'person', 'people')} ahead of you. Expected wait ${duration}.`,
  announceHeld: (ahead, count) =>
    `${ahead} ${plural(count, 'person', 'people')} ahead of you. Admission is held: waiting for places to free up.`,
  lobbyNumber: (index) => `Lobby entry ${index}. Your receipt is kept on this device.`,
  pausedTitle: 'The queue is paused',
  pausedLead: 'The site has paused admissions for a moment. You keep your place; this page carries on by itself.',
  admittedTitle: 'It is your turn',
  admittedLead: 'Taking you to the site…',
  admittedLink: 'Continue to the site',
  passRefusedTitle: 'The site did not accept your pass',
  passRefusedLead: (reason) =>
    `The site sent you back here instead of letting you in (reason: ${reason}). Tell the site’s organisers, ` +
    'or try once more with the link below.',
  soldOutTitle: 'Sold out',
  soldOutLead: 'Everything has been sold. Thank you for waiting.',
  alternativesTitle: 'You can still queue for',
  turnEndedTitle: 'Your turn has ended',
  turnEndedLead: 'Your pass was not used in time, or your visit is complete.',
  alternativeState: { open: 'open now', lobby: 'lobby open', drawing: 'drawing places', paused: 'paused' },
  closedTitle: 'The queue is closed',
  closedLead: 'This waiting room takes no more visitors.',
  holdingTitle: 'Your seats are held',
  holdingLead: (seats) =>
    `${seats} ${seats === 1 ? 'seat is' : 'seats are'} yours while you pay. Finish at the shop before the time runs out; ` +
    'after that the seats go to the next people in the queue.',
  holdCountdownLabel: 'Time left to pay',
  waitlistedTitle: 'You are on the waitlist',
  waitlistedLead: (seats, position) =>
    `You are number ${position} on the waitlist for ${seats} ${seats === 1 ? 'seat' : 'seats'}. Seats that other ` +
    'people give back go to the waitlist in order; this page shows when yours are held.',
  waitlistCountdownLabel: 'Your place on the waitlist lasts',
  expiredTitle: 'Your place has expired',
  expiredLead: 'This device no longer holds a valid place in this queue. You can join again, at the back.',
  rejoin: 'Join again',

  // Durations and odds
  lessThanMinute: 'less than a minute',
  heldWait: 'waiting for places to free up',
  minutes: (n, count) => `about ${n} ${plural(count, 'minute', 'minutes')}`,
  hours: (n, count) => `about ${n} ${plural(count, 'hour', 'hours')}`,
  hoursMinutes: (h, m) => `about ${h} h ${m} min`,
  days: (n, count) => `about ${n} ${plural(count, 'day', 'days')}`,
  oddsLead: (items, itemCount, people, peopleCount) =>
    `About ${items} ${plural(itemCount, 'item', 'items')} left for ${people} ${plural(peopleCount, 'person', 'people')} ahead of you`,
  oddsLikely: 'you are likely to get one.',
  oddsClose: 'it will be close.',
  oddsUnlikely: 'you are unlikely to get one.',
  oddsNone: 'Nothing is left for sale; the site may still release more.',

  // Room list
  indexTitle: 'Waiting rooms',
  indexLead: 'Choose the waiting room you were sent to.',
  indexEmpty: 'There are no waiting rooms here.',

  // Verify page
  verifyTitle: 'Check the draw',
  verifyLead:
    'When a room opens with a lobby, everyone in the lobby gets a place by a lottery. The organiser publishes a ' +
    'fingerprint (commitment) of a secret seed before the lobby opens and reveals the seed after it closes, so nobody ' +
    'can choose the order after seeing who joined. This page checks it all in your browser.',
  roomLabel: 'Room',
  lotteryHeading: 'The published draw',
  fieldState: 'State',
  fieldCommitment: 'Commitment, SHA-256 of the seed',
  fieldLobbySize: 'People in the lobby',
  fieldLobbyRoot: 'Lobby root (Merkle tree of all entrants)',
  fieldBeacon: 'Beacon (public random value)',
  fieldBeaconRule: 'Beacon rule',
  fieldSeed: 'Seed',
  fieldDrawAt: 'Draw',
  notYet: 'not yet published',
  noBeacon:
    'This room has no beacon. The seed was fixed before anyone joined, but in principle the organiser could have ' +
    'added entrants of their own before the close; a beacon rules that out.',
  operatorBeacon:
    'This room\'s beacon is a value the operator supplies, not a public one nobody could know at the close: in ' +
    'principle the organiser could still have chosen entrants of their own to move places. A drand beacon rules that out.',
  fifoRoom: 'This room has no lobby: places are given first come, first served, so there is no draw to check.',
  seedCheckPass: 'SHA-256(seed) equals the commitment published before the lobby opened.',
  seedCheckFail: 'SHA-256(seed) does NOT equal the published commitment.',
  seedPending: 'The seed stays secret until the lobby closes; only its commitment is public until then.',
  receiptHeading: 'Check a receipt',
  receiptLead:
    'Everyone who joins a lobby gets a receipt signed by the room. Your own receipt is filled in when this device ' +
    'holds one; you can also paste anyone’s receipt.',
  receiptLabel: 'Receipt (JSON)',
  checkReceipt: 'Check this receipt',
  checking: 'Checking…',
  receiptInvalidJson: 'This is not a receipt: paste the JSON object the room gave at joining.',
  checkNames: {
    commitment: 'Seed against commitment',
    'receipt commitment': 'Receipt names this draw',
    'receipt signature': 'Receipt signature',
    inclusion: 'Entrant included in the lobby',
    'key derivation': 'Lottery key',
  },
  checkPass: 'passed',
  checkFail: 'FAILED',
  checkSkipped: 'not checked',
  placeResult: (number, place) => `This receipt’s number in the queue: ${number} (place ${place}, counted from 0).`,
  allPassed: 'Every check passed: this place follows from the published draw.',
  someFailed: 'At least one check failed.',
  auditHeading: 'Check the whole draw',
  auditLead:
    'Fetches the public ledger and the whole lobby, then checks every signature, every witness, every entrant and ' +
    'every place, here in your browser. A large lobby takes a while.',
  auditButton: 'Check the whole draw',
  auditPhase: {
    ledger: (done, total) => `Reading the ledger: ${done} of ${total} entries`,
    lobby: (done, total) => `Reading the lobby: ${done} of ${total} entrants`,
    places: (done, total) => `Recomputing places: ${done} of ${total}`,
  },
  auditDone: (seconds) => `Checked in ${seconds} s.`,
  auditPassed: 'Every check passed: the whole draw follows from what was published, in the right order.',
  auditFailed: 'At least one check failed: this draw cannot be trusted as published.',
  auditError: 'The check could not run: the ledger could not be read.',
  auditCheckNames: {
    'ledger key': 'Ledger key and witnesses',
    'ledger checkpoint': 'Ledger checkpoint signature',
    'ledger tiles': 'Ledger contents',
    'entries order': 'Commit, close and reveal in order',
    'witnessed commit': 'Witnesses saw the commitment',
    'witnessed close': 'Witnesses saw the close',
    commitment: 'Seed against commitment',
    'lobby checkpoint': 'Lobby as closed',
    'lobby tiles': 'Every entrant in the lobby',
    'distinct entrants': 'No entrant twice',
    beacon: 'Beacon',
    'close before beacon': 'Lobby closed before the beacon',
    key: 'Lottery key',
    places: 'Every place',
    'reveal after quorum': 'Seed revealed after the witnesses',
  },
  timelineCaption: 'When each step happened. The witnesses’ times come from their own signed clocks.',
  timelineTitle: 'Timeline of the draw',
  timelineLabels: {
    commit: 'commit',
    witnessedCommit: 'witnessed',
    close: 'close',
    witnessedClose: 'witnessed',
    beacon: (round) => `beacon #${round}`,
    reveal: 'reveal',
  },
  fieldUniformity: 'Join order against place',
  uniformity: (p, bands) =>
    `no link found (chi-square over ${bands}×${bands} bands, p = ${p}); a fair shuffle gives any p, a rigged one a tiny p`,
  uniformityTooSmall: 'too few entrants to test',
  hashesUsed: (name) => `Hashes computed with ${name === 'webcrypto' ? 'your browser’s WebCrypto' : 'plain JavaScript'}.`,

  // Welcome page (the demo room's target)
  welcomeTitle: 'You are in',
  welcomeLead:
    'The waiting room let you through and gave you a pass: a signed token that says you were admitted. ' +
    'A real site checks it with the room’s public key and lets you shop; nobody has to call the waiting room.',
  welcomeNoPass: 'No pass came with this visit. Join a waiting room first.',
  seatsHeading: 'Seats',
  seatsLead: (available, total) => `${available} of ${total} seats are available now.`,
  seatsCount: 'Seats to hold',
  holdSeats: 'Hold seats',
  holdHeld: (seats) => `${seats} ${seats === 1 ? 'seat is' : 'seats are'} held for you.`,
  holdConfirmed: (id) => `Confirmed: the seats are yours (confirmation ${id}).`,
  holdReleased: 'Released: the seats went back to the queue.',
  holdExpired: 'The hold ran out of time: the seats went back to the queue.',
  holdRefund: 'The payment came too late for the seats: the shop refunds it.',
  holdWaitlisted: (position) => `No seats now: you are number ${position} on the waitlist.`,
  holdShopHint:
    'This page is the demo shop. A real shop confirms the hold from its server once the payment succeeds, ' +
    'with the site token (server.site_token, or the admin token):',
  releaseSeats: 'Release the seats',
  holdNoAnswer: 'The server did not answer. Try again in a moment.',
  passHeading: 'Your pass',
  passRoom: 'Room',
  passVisitor: 'Visitor',
  passExpires: 'Valid until',
  passSignature: 'Signature',
  passSignatureValid: (kid) => `valid, by key ${kid} from /.well-known/jwks.json`,
  passSignatureInvalid: 'does not match any published key',
  passSignatureUnchecked: 'not checked here: that needs WebCrypto with Ed25519 and the published keys',

  // Operator console
  consoleTitle: 'Foyer console',
  tokenLabel: 'Admin token',
  signIn: 'Sign in',
  signOut: 'Sign out',
  tokenRefused: 'The server refused this token.',
  adminDisabled: 'The admin API is off: set server.admin_token in the configuration.',
  updatedAt: (time) => `Updated ${time}`,
  colJoined: 'Joined',
  colServed: 'Served',
  colWaiting: 'Waiting',
  colLobby: 'In lobby',
  colRate: 'Rate per minute',
  colRateReason: 'Why this rate',
  colActive: 'Passes live',
  colClaimed: 'Passes claimed',
  colNoShows: 'Never came',
  colStock: 'Stock left',
  colSeatsTotal: 'Seats',
  colSeatsAvailable: 'Seats available',
  colSeatsHeld: 'Seats held',
  colSeatsConfirmed: 'Seats confirmed',
  colSeatsCheck: 'Seat check',
  colDrawAt: 'Draw at',
  typeToConfirm: (id) => `This cannot be undone. Type the room id, ${id}, to confirm`,
  seatsCheck: (frozen) => (frozen ? 'failed' : 'holds'),
  recentExpiries: (items) => `Holds that ran out: ${items.join(', ')}.`,
  expiredHold: (seats, time) => `${seats} ${seats === 1 ? 'seat' : 'seats'} at ${time}`,
  rateReasons: {
    configured: 'as configured',
    adaptive_increase: 'raised: the site is healthy',
    adaptive_decrease: 'cut: the site is slow or failing',
    adaptive_no_signal: 'cut: the site sent no signal',
    no_show_compensation: 'raised to make up for no-shows',
    held_by_max_active: 'held: max_active passes are live',
    held_by_seats: 'held: no seat is free for the next visitor',
  },
  chartQueue: 'Queue depth, last hour',
  chartAdmissions: 'Admissions per minute, last hour',
  chartEmpty: 'Collecting samples…',
  chartLatest: (value) => `now ${value}`,
  axisScale: (top) => `scale 0–${top}`,
  axisEnd: 'now',
  opsLine: (rates, level) => {
    const load = ['normal', 'polls slowed', 'far polls shed', 'new visitors refused'][level] ?? `level ${level}`;
    const flow = rates ? `Joins ${rates.joins.toFixed(1)}/s · admissions ${rates.admissions.toFixed(1)}/s` : 'Measuring joins and admissions…';
    return `${flow} · load: ${load} (level ${level})`;
  },
  consoleOffline: (when) => `Cannot reach the server. Trying again ${when}.`,
  noAnswer: 'No answer from the server. Check the room before trying again.',
  needsBeacon: 'The draw waits for the beacon value.',
  seatsFrozen: 'The seat count failed its check (confirmed + held + available ≠ total): every hold is refused until you look.',
  closeLobby: 'Close the lobby now',
  closeLobbyConfirm: (name) => `Close the lobby of ${name} now and draw the places? This cannot be undone.`,
  beaconLabel: 'Beacon value (hex)',
  supplyBeacon: 'Supply the beacon',
  pauseRoom: 'Pause admission',
  pauseConfirm: (name) => `Pause admission to ${name}? Visitors keep their places; nobody is let in until you resume.`,
  resumeRoom: 'Resume admission',
  resumeConfirm: (name) => `Resume admission to ${name}? The rate starts afresh: the pause is not made up in a burst.`,
  soldOutRoom: 'Mark sold out',
  soldOutConfirm: (name) => `Mark ${name} sold out? The queue closes to newcomers and waiting visitors are told.`,
  closeRoom: 'Close the room',
  closeRoomConfirm: (name) => `Close ${name}? Nobody else can join. This cannot be undone.`,
  beaconConfirm: (name) => `Supply this beacon for ${name} and draw the places? This cannot be undone.`,
  confirm: 'Confirm',
  cancel: 'Cancel',
  actionDone: (state) => `Done: the room is now ${state}.`,
  httpStatus: (status) => `The server answered HTTP ${status}.`,
  owners: {
    file: 'Declared in the configuration file',
    api: 'Created through the admin API',
  },
  noRooms: 'There are no rooms yet. Create one with “New room”.',
  newRoom: 'New room',
  editRoom: 'Edit settings',
  rateInputLabel: 'New rate per minute',
  applyRate: 'Change the rate',
  rateConfirm: (name, from, to) => `Change the rate of ${name} from ${from} to ${to} visitors per minute?`,
  rateDone: (rate) => `Done: the rate is now ${rate} per minute.`,
  deleteRoom: 'Delete the room',
  deleteConfirm: (name) => `Delete ${name}? Its waiting room and its settings are removed. This cannot be undone.`,
  forceDeleteConfirm: (name, n, count) =>
    `${n} ${plural(count, 'visitor is', 'visitors are')} waiting in ${name}. ` +
    'Close the room and delete it? They lose their places. This cannot be undone.',
  closeAndDelete: 'Close and delete',
  roomCreated: (name) => `Created ${name}.`,
  roomDeleted: (name) => `Deleted ${name}.`,
  roomSaved: (settings) => `Saved: ${settings}.`,
  nothingChanged: 'Nothing to save: no setting was changed.',

  // The room settings form
  newRoomTitle: 'New room',
  editRoomTitle: (name) => `Edit ${name}`,
  createRoom: 'Create the room',
  saveRoom: 'Save changes',
  optional: '(optional)',
  fileRoomNote:
    'This room is declared in the configuration file. A change made here stays until that setting changes in the ' +
    'file and the file is reloaded.',
  opensAtExample: (example) => `For example ${example}, in your time zone.`,
  roomGroups: {
    room: 'Room',
    admission: 'Admission',
    lottery: 'Lottery opening',
    branding: 'Branding',
  },
  roomFields: {
    id: { label: 'Id', hint: 'Part of the room’s address, /r/id: a–z, 0–9, - and _. It cannot be changed later.' },
    name: { label: 'Name', hint: 'What visitors see. Empty: the id.' },
    target_url: {
      label: 'Target URL',
      hint: 'Where admitted visitors are sent: a path on this server such as /welcome, or an absolute http(s) URL.',
    },
    rate_per_minute: { label: 'Rate per minute', hint: 'Visitors admitted per minute. Empty: 60.' },
    pass_ttl_seconds: { label: 'Pass lifetime in seconds', hint: 'How long an admitted visitor’s pass is valid. Empty: 900.' },
    stock: {
      label: 'Stock',
      hint: 'Items on sale at the start; the site’s reports keep it, and at 0 the room is sold out. Empty: no stock.',
    },
    max_active: { label: 'Most passes live', hint: 'The queue holds while this many passes are live. Empty: no cap.' },
    claim_window_seconds: {
      label: 'Claim window in seconds',
      hint: 'An admitted visitor who has not come for their pass by then is a no-show. Empty: 600.',
    },
    no_show_max_multiplier: {
      label: 'No-show multiplier',
      hint: 'Admit up to this many times the rate to make up for no-shows. Empty: 1, off.',
    },
    alternatives: { label: 'Alternatives', hint: 'Room ids offered when this room sells out, separated by commas.' },
    opens_at: {
      label: 'Opens at',
      hint: 'Date and time with an offset (RFC 3339). Everyone who joins before then, plus the lobby window, gets a ' +
        'place by lottery. Empty: first come, first served.',
    },
    lobby_window_seconds: { label: 'Lobby window in seconds', hint: 'How long the lobby stays open after opens at. Empty: 0.' },
    beacon_rule: {
      label: 'Beacon rule',
      hint: 'drand-quicknet: the draw mixes in the drand round 30 s after the close, fetched and checked for you. ' +
        'Other words: a value you supply after the close. Needs opens at. Empty: no beacon.',
    },
    logo_url: { label: 'Logo URL', hint: 'An https:// URL or a path on this server.' },
    accent_colour: { label: 'Accent colour', hint: 'A hex colour such as #1a5fb4.' },
  },
  states: {
    lobby: 'lobby open',
    drawing: 'drawing',
    open: 'open',
    paused: 'paused',
    sold_out: 'sold out',
    closed: 'closed',
  },
};
