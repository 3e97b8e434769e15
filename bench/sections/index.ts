// The sections in the order a full run takes them. Order matters only where a section needs the
// stack in a state: tasks polled as `pending` are made before the worker starts (BenchContext).
import { dataScaleSection } from './data-scale';
import { accountPagesSection } from './account-pages';
import { inFlightSection } from './in-flight';
import { largeBodiesSection } from './large-bodies';
import { largeResultsSection } from './large-results';
import { pipelineSection } from './pipeline';
import { pollSection } from './poll';
import { promptOptimizerSection } from './prompt-optimizer';
import { scaleSection } from './scale';
import type { Section } from './section';
import { submitSection } from './submit';
import { timeToResultSection } from './time-to-result';
import { webhookFairnessSection } from './webhook-fairness';
import { sseSection } from './sse';

export const SECTIONS: Section[] = [submitSection, pollSection, pipelineSection, timeToResultSection, largeBodiesSection, inFlightSection, largeResultsSection, scaleSection, sseSection, webhookFairnessSection, promptOptimizerSection, accountPagesSection, dataScaleSection];
