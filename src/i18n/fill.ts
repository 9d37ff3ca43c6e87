/** A catalog text with its {{name}} placeholders filled (i18next's syntax, for the pages that render on the server). */
export function fillText(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => values[k] ?? '');
}
