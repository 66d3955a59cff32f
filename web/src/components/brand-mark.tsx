/** agency's mark: a shield with a check, drawn inline (no image requests). */
export function BrandMark() {
  return (
    <svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="8" fill="var(--primary)" />
      <path
        d="M16 6.5 24 9.5v6.2c0 4.9-3.3 8.6-8 9.8-4.7-1.2-8-4.9-8-9.8V9.5z"
        fill="#fff"
        fill-opacity=".18"
        stroke="#fff"
        stroke-width="1.6"
        stroke-linejoin="round"
      />
      <path
        d="m12.3 16.1 2.6 2.6 4.9-5.2"
        fill="none"
        stroke="#fff"
        stroke-width="2"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  );
}
