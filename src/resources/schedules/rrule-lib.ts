/** The rrule package, whose CommonJS build Node loads without named exports. */
import rrulePackage from 'rrule';
import type { Options as RuleOptions, RRuleSet as RuleSet } from 'rrule';

export const { RRule, RRuleSet, Frequency } = rrulePackage;
export type Options = RuleOptions;
export type RRuleSetType = RuleSet;
