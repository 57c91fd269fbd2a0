// The app's colour and dark mode as CSS custom properties on the element that holds the client.
import type { AppConfig } from "./api.ts";

const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/**
 * Black or white, whichever reads better on `hex` (WCAG relative luminance), so a light brand colour
 * still gets a legible header.
 *
 * @example textOn("#ffcc00") // "#111111"
 */
export function textOn(hex: string): string {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // The luminance where black and white have equal contrast (both about 4.58:1).
  return luminance > 0.179 ? "#111111" : "#ffffff";
}

/**
 * Applies the theme to `element`: `--accent`, `--on-accent` and the `dark` class. A colour that is not
 * `#RRGGBB` keeps the default accent.
 *
 * @example applyTheme(panel, { color: "#0f766e", dark: false })
 */
export function applyTheme(element: HTMLElement, theme: AppConfig["theme"] | undefined): void {
  if (theme && HEX_COLOUR.test(theme.color)) {
    element.style.setProperty("--accent", theme.color);
    element.style.setProperty("--on-accent", textOn(theme.color));
  }
  element.classList.toggle("dark", Boolean(theme?.dark));
}
