// Page object for the lesson panel and the lesson list, over their dotted
// test ids and the typed test handle.
import { expect, type Locator } from '@playwright/test';
import type { LessonState } from '../../../web/src/lessons/runner';
import type { SandboxPage } from './sandbox';

export class LessonPane {
  constructor(private readonly app: SandboxPage) {}

  get panel(): Locator {
    return this.app.byId('lesson.panel');
  }

  get stepOf(): Locator {
    return this.app.byId('lesson.stepOf');
  }

  get title(): Locator {
    return this.app.byId('lesson.step.title');
  }

  /** Opens a lesson from the list in the header. */
  async open(id: string): Promise<void> {
    await this.app.byId('lessons.open').click();
    const picker = this.app.byId('lessons.picker');
    await expect(picker).toBeVisible();
    await picker.locator(`[data-testid="lessons.item"][data-lesson="${id}"]`).getByTestId('lessons.start').click();
    await expect(picker).toBeHidden();
    await expect(this.panel).toHaveAttribute('data-lesson', id);
    await this.settled();
  }

  /** Waits until neither the lesson runner nor the engine is busy. */
  async settled(): Promise<void> {
    await this.app.page.waitForFunction(() => !window.glasskv.lesson().busy && window.glasskv.state().inflight === 0
      && window.glasskv.state().phase === 'ready');
  }

  async state(): Promise<LessonState> {
    return this.app.page.evaluate(() => window.glasskv.lesson());
  }

  block(key: string): Locator {
    return this.app.page.locator(`[data-block-key="${key}"]`);
  }

  /** Runs an acting block by its key ("0.1") and waits for it. */
  async run(key: string): Promise<void> {
    await this.block(key).getByTestId('lesson.block.run').click();
    await this.settled();
    await expect(this.block(key)).toHaveAttribute('data-state', 'done');
  }

  /** Answers a predict block (a choice's value, or free text) and runs it. */
  async answer(key: string, answer: string): Promise<void> {
    const block = this.block(key);
    const choice = block.locator(`[data-testid="lesson.predict.choice"][value="${answer}"]`);
    if (await choice.count()) await choice.check();
    else await block.getByTestId('lesson.predict.input').fill(answer);
    await block.getByTestId('lesson.predict.check').click();
    await this.settled();
    await expect(block.getByTestId('lesson.predict.result')).toBeVisible();
  }

  async next(): Promise<void> {
    await this.app.byId('lesson.next').click();
    await this.settled();
  }

  async goTo(step: number): Promise<void> {
    await this.app.byId('lesson.steps').click();
    await this.app.page.locator(`[data-testid="lesson.steps.item"][data-step="${step}"]`).click();
    await this.settled();
  }
}
