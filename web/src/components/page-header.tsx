import type { ComponentChildren } from 'preact';

/** A page's title block: a small line above, the title, and actions on the right. */
export function PageHeader({
  pretitle,
  title,
  actions,
}: {
  pretitle?: ComponentChildren;
  title: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <div class="page-header">
      <div class="page-header-text">
        {pretitle !== undefined ? <div class="page-pretitle">{pretitle}</div> : null}
        <h1 class="page-title">{title}</h1>
      </div>
      {actions !== undefined ? <div class="page-actions">{actions}</div> : null}
    </div>
  );
}
