import type { ComponentChildren, PartialAnchorHTMLAttributes, TargetedMouseEvent } from 'preact';
import { navigate } from '../hooks/use-location.ts';

type LinkProps = Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'> & {
  href: string;
  children: ComponentChildren;
};

/** An in-app link: a real `<a>` (middle-click and copy work) that navigates without a reload on a plain click. */
export function Link({ href, children, onClick, ...rest }: LinkProps) {
  const follow = (event: TargetedMouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
