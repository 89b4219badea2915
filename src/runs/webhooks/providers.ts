/** Every webhook service a template may name, each with its receiver at /<templates>/{id}/<service>/. */
import { azureDevops } from './azure-devops.ts';
import { bitbucketDc } from './bitbucket-dc.ts';
import { gitea } from './gitea.ts';
import { github } from './github.ts';
import { gitlab } from './gitlab.ts';
import type { WebhookProvider } from './provider.ts';

export const WEBHOOK_PROVIDERS: readonly WebhookProvider[] = [github, gitlab, bitbucketDc, gitea, azureDevops];

export const providerOf = (service: string): WebhookProvider | undefined => WEBHOOK_PROVIDERS.find((p) => p.service === service);
