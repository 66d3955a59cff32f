import type { ComponentChildren } from 'preact';

type CardProps = {
  title?: ComponentChildren;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  /** Drops the body's padding, for tables and lists that run edge to edge. */
  flush?: boolean;
  class?: string;
  testId?: string;
};

/** A white panel with an optional header. */
export function Card({ title, subtitle, actions, children, flush = false, class: extra, testId }: CardProps) {
  return (
    <section class={`card${extra ? ` ${extra}` : ''}`} data-testid={testId}>
      {title !== undefined || actions !== undefined ? (
        <header class="card-header">
          <div>
            {title !== undefined ? <h2 class="card-title">{title}</h2> : null}
            {subtitle !== undefined ? <div class="card-subtitle">{subtitle}</div> : null}
          </div>
          {actions !== undefined ? <div class="card-actions">{actions}</div> : null}
        </header>
      ) : null}
      <div class={flush ? 'card-body card-body-flush' : 'card-body'}>{children}</div>
    </section>
  );
}
