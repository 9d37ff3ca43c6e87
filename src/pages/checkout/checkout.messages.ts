// Every text of the hosted payment pages, in French (the default) and English.
import { catalog, fillText } from '../../i18n/index.js';
import { pageLang, type Lang } from '../../shared/lang.js';

export type { Lang };
export const langOf = pageLang;

/** The checkout's texts, from the one catalog (src/i18n). */
export const TEXT = { en: catalog.en.checkout, fr: catalog.fr.checkout };

export const fill = fillText;
