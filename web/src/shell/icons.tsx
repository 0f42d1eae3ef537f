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
