/**
 * Why a page cannot do what the shopper came for, in their words, from the service's answer:
 * 404 CheckoutNotFound (unknown or expired), 409 BasketChanged, 404 BuilderNotFound, 400 for a link of
 * the wrong form, anything else (5xx, no answer) a temporary failure.
 */
import { html, page, type RenderedPage } from './html.ts';

export interface Problem {
  /** HTTP status of the page. */
  status: number;
  title: string;
  explanation: string;
  nextStep: string;
}

const NOTHING_CHARGED = 'Nothing has been charged.';
const CHECK_OUT_AGAIN = 'Go back to the app and check out again to get a new checkout link.';

export function checkoutProblem(answer: { status: number; code: string }): Problem {
  if (answer.code === 'BasketChanged' || answer.status === 409) {
    return {
      status: 409,
      title: 'This checkout can no longer be paid',
      explanation: `The basket was changed, emptied or already ordered after this checkout was started, so what you would pay for no longer matches your basket. ${NOTHING_CHARGED}`,
      nextStep: CHECK_OUT_AGAIN,
    };
  }
  if (answer.status === 404 || answer.status === 400) {
    return {
      status: 404,
      title: 'This checkout link has expired',
      explanation: `Checkout links are valid for a limited time, and this one has expired or does not exist. ${NOTHING_CHARGED}`,
      nextStep: CHECK_OUT_AGAIN,
    };
  }
  return temporaryProblem();
}

/** Why the customer's cancel was refused: their token (401, or another user's order: 404), or the lab started (409). */
export function cancelProblem(answer: { status: number; code: string }): Problem {
  if (answer.status === 409)
    return {
      status: 409,
      title: 'This order can no longer be cancelled',
      explanation: 'We have started making it, so it can no longer be cancelled here.',
      nextStep: 'Contact us if something is wrong with your order.',
    };
  if (answer.status === 401 || answer.status === 404 || answer.status === 400)
    return {
      status: 403,
      title: 'We could not tell that this is your order',
      explanation:
        'The sign-in token was refused, or it is not the token of the customer who placed this order. Nothing was cancelled.',
      nextStep: 'Go back and enter your own sign-in token.',
    };
  return temporaryProblem();
}

export function builderProblem(answer: { status: number; code: string }): Problem {
  if (answer.status === 404 || answer.status === 400) {
    return {
      status: 404,
      title: 'We could not find these photos',
      explanation: 'This product builder link does not exist, or the photos it showed have been deleted.',
      nextStep: 'Go back to the app and open the product builder again from your upload.',
    };
  }
  return temporaryProblem();
}

export const temporaryProblem = (): Problem => ({
  status: 502,
  title: 'Something went wrong on our side',
  explanation: `We could not reach the order service just now. ${NOTHING_CHARGED}`,
  nextStep: 'Please reload this page in a moment.',
});

export const notFoundProblem = (): Problem => ({
  status: 404,
  title: 'Page not found',
  explanation: 'There is no page at this address.',
  nextStep: 'Open the checkout or product builder link the app gave you.',
});

export const problemPage = (problem: Problem): RenderedPage =>
  page({
    title: problem.title,
    main: html`<h1>${problem.title}</h1>
<div class="notice" role="alert"><p>${problem.explanation}</p></div>
<p>${problem.nextStep}</p>`,
  });
