// Small inline icons (no icon font, so they render on any machine).
const common = { width: 16, height: 16, viewBox: '0 0 16 16', 'aria-hidden': true, focusable: false } as const;

export function PlayIcon() {
  return (
    <svg {...common}>
      <path d="M4 2.5v11l9-5.5z" fill="currentColor" />
    </svg>
  );
}

export function PauseIcon() {
  return (
    <svg {...common}>
      <rect x="3.5" y="2.5" width="3" height="11" rx="0.5" fill="currentColor" />
      <rect x="9.5" y="2.5" width="3" height="11" rx="0.5" fill="currentColor" />
    </svg>
  );
}

export function NextIcon() {
  return (
    <svg {...common}>
      <path d="M3 2.5v11l7-5.5z" fill="currentColor" />
      <rect x="11" y="2.5" width="2.5" height="11" rx="0.5" fill="currentColor" />
    </svg>
  );
}

export function ShareIcon() {
  return (
    <svg {...common}>
      <path d="M8 1.5 4.5 5h2.3v5h2.4V5h2.3z" fill="currentColor" />
      <path d="M2.5 8.5v5h11v-5" fill="none" stroke="currentColor" strokeWidth="1.6" />
    </svg>
  );
}

export function PresentIcon() {
  return (
    <svg {...common}>
      <rect x="1.5" y="2" width="13" height="8.5" rx="1" fill="none" stroke="currentColor" strokeWidth="1.6" />
      <path d="M8 10.5v2.5M5 14.5h6" stroke="currentColor" strokeWidth="1.6" />
    </svg>
  );
}

export function PlusIcon() {
  return (
    <svg {...common}>
      <path d="M8 3v10M3 8h10" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

export function MinusIcon() {
  return (
    <svg {...common}>
      <path d="M3 8h10" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

export function ArrowLeftIcon() {
  return (
    <svg {...common}>
      <path d="M13 8H3.5M7.5 3.5 3 8l4.5 4.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round"
        strokeLinejoin="round" />
    </svg>
  );
}

export function ArrowRightIcon() {
  return (
    <svg {...common}>
      <path d="M3 8h9.5M8.5 3.5 13 8l-4.5 4.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round"
        strokeLinejoin="round" />
    </svg>
  );
}

/** An arrow turning back on itself: start again (a step, the world). */
export function RestartIcon() {
  return (
    <svg {...common}>
      <path d="M3.5 8.5a4.5 4.5 0 1 0 1.6-3.4" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round" />
      <path d="M2.5 2.5v3.6h3.6" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round"
        strokeLinejoin="round" />
    </svg>
  );
}

/** Back to the start, as a video player draws it. */
export function RewindIcon() {
  return (
    <svg {...common}>
      <rect x="2.5" y="2.5" width="2.5" height="11" rx="0.5" fill="currentColor" />
      <path d="M13 2.5v11L6 8z" fill="currentColor" />
    </svg>
  );
}

/** Opens elsewhere (a new tab). */
export function ExternalIcon() {
  return (
    <svg {...common}>
      <path d="M6.5 3.5h-3v9h9v-3" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
      <path d="M9 2.5h4.5V7M13.5 2.5 7.5 8.5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round"
        strokeLinejoin="round" />
    </svg>
  );
}

/** Two arrows passing each other: a connection's requests and replies. */
export function ConnectionIcon() {
  return (
    <svg {...common}>
      <path d="M2.5 5.5h10M10 3l2.5 2.5L10 8M13.5 10.5h-10M6 8l-2.5 2.5L6 13" fill="none" stroke="currentColor"
        strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function CheckIcon() {
  return (
    <svg {...common} className="icon-inline">
      <path d="M3 8.5 6.5 12 13 4.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round"
        strokeLinejoin="round" />
    </svg>
  );
}

export function CrossIcon() {
  return (
    <svg {...common} className="icon-inline">
      <path d="M4 4l8 8M12 4l-8 8" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

/** A solid triangle pointing right: "this one". */
export function MarkIcon() {
  return (
    <svg {...common} className="icon-inline">
      <path d="M4 3v10l8-5z" fill="currentColor" />
    </svg>
  );
}

/** A blank page with a plus: a new session. */
export function NewIcon() {
  return (
    <svg {...common}>
      <path d="M3.5 1.5h6l3 3v10h-9z" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
      <path d="M8 7v5M5.5 9.5h5" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}
