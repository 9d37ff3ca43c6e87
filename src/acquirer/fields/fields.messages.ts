// Texts of the secure fields and the simulated bank page, in English and French.
import { catalog } from '../../i18n/index.js';
import { pageLang } from '../../shared/lang.js';

export type Lang = 'en' | 'fr';

export const langOf = pageLang;

export const FIELD_TEXT = { en: catalog.en.fields, fr: catalog.fr.fields };

export const BANK_TEXT = { en: catalog.en.bank, fr: catalog.fr.bank };
