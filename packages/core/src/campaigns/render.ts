import type { CampaignTemplate } from "./campaign.js"
import { OutgoingEmail } from "../mail/email.js"
import type { BatchMember } from "./campaign-store.js"

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g

/** Fills `{{name}}` from the recipient's vars (and `{{email}}`); an unknown name becomes empty. */
export const fill = (text: string, values: Readonly<Record<string, string>>) =>
  text.replace(PLACEHOLDER, (_, name: string) => values[name] ?? "")

/** A campaign's email for one member. Deterministic, so a retried batch sends identical bodies. */
export const renderCampaignEmail = (template: CampaignTemplate, member: BatchMember): OutgoingEmail => {
  const values = { ...member.vars, email: member.email }
  return new OutgoingEmail({
    from: template.from,
    to: member.email,
    subject: fill(template.subject, values),
    text: fill(template.text, values),
    ...(template.html === undefined ? {} : { html: fill(template.html, values) }),
    ...(template.replyTo === undefined ? {} : { replyTo: template.replyTo }),
    ...(template.headers === undefined ? {} : { headers: template.headers })
  }, true) // the template was validated when the campaign was created
}
