/**
 * Whether the element shows a focus ring: focus adds a visible outline or box shadow (a non-zero width in a
 * colour that is not transparent) it does not have without focus. Focus is put back after looking, so the next
 * Tab goes on from there. Runs in the page (`locator.evaluate(showsFocusRing)`), so it refers to nothing outside.
 */
export function showsFocusRing(element: Element): boolean {
  const target = element as HTMLElement;
  const clear = (color: string) =>
    color === 'transparent' || /^rgba\(.*,\s*0\)$/.test(color) || /\/\s*0\)$/.test(color);
  const look = () => {
    const style = getComputedStyle(target);
    const outline =
      style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 && !clear(style.outlineColor)
        ? `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`
        : 'none';
    const shadows = style.boxShadow === 'none' ? [] : style.boxShadow.split(/,(?![^(]*\))/);
    const shadow = shadows
      .filter((one) => {
        const color = /[a-z]+\([^)]*\)|transparent/.exec(one)?.[0] ?? '';
        const lengths = one.replace(color, '').match(/-?[\d.]+px/g) ?? [];
        return !clear(color) && lengths.some((length) => parseFloat(length) !== 0);
      })
      .join(',');
    return { outline, shadow };
  };
  const on = look();
  target.blur();
  const off = look();
  target.focus();
  return (
    (on.outline !== 'none' && on.outline !== off.outline) || (on.shadow !== '' && on.shadow !== off.shadow)
  );
}
