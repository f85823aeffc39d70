import { createLinkedInApi, linkedInFailureOf, type LinkedInOptions } from './linkedin-api.ts';
import { SocialRejectedError, type VerifiedAccount } from '../social-connector.ts';

// Who a LinkedIn connection posts as. The member themself by default; an organisation when the client names one in
// its authorization request (`author: "urn:li:organization:…"`), which the callback checks here against the
// member's roles in the organisation (Organization Access Control,
// https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role)
// before the connection is created: LinkedIn would refuse every post otherwise, and only after the fact.

/**
 * The company page roles that may publish the organisation's own posts. DIRECT_SPONSORED_CONTENT_POSTER is not one:
 * LinkedIn describes it as creating sponsored content (ads) only, while "Post updates" is the administrators'
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role).
 */
const postingRoles = new Set(['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR']);
const organizationUrn = /^urn:li:organization:(\d{1,19})$/;
// Roles come a page at a time; a member with more than this many approved roles is not a case to page on for.
const aclPageSize = 100;
const maxAclPages = 10;

/** How the member is read: OpenID Connect's userinfo, or (an app without OpenID) their basic profile. */
type LinkedInIdentity = 'openid' | 'profile';

type LinkedInAuthor = VerifiedAccount & {
  /** The URN the posts are by, kept in the connection's credentials. */
  author: string;
};

export type LinkedInAuthors = {
  /**
   * The member the access token is of, their name and `urn:li:person:{id}`: from OpenID Connect's userinfo, or, for a
   * token of an app without OpenID (`profile`), from their basic profile.
   */
  member(accessToken: string, identity: LinkedInIdentity): Promise<VerifiedAccount>;
  /**
   * The author a connection posts as: `requested` (an organisation URN) when the member may post for it, else the
   * member. Throws SocialRejectedError when the organisation is not one the member may post for.
   */
  authorFor(input: { accessToken: string; member: VerifiedAccount; requested?: string | undefined }): Promise<LinkedInAuthor>;
};

export function createLinkedInAuthors(options: LinkedInOptions): LinkedInAuthors {
  const api = createLinkedInApi(options);

  /** Whether the member holds an approved posting role in the organisation. */
  async function mayPostFor(accessToken: string, organization: string): Promise<boolean> {
    for (let page = 0; page < maxAclPages; page += 1) {
      const answer = await api.call({
        method: 'GET',
        path: '/rest/organizationAcls',
        query: { q: 'roleAssignee', state: 'APPROVED', start: String(page * aclPageSize), count: String(aclPageSize) },
        token: accessToken,
      });
      if (answer.status !== 200) throw linkedInFailureOf(answer, "reading the member's organisation roles", [accessToken]);
      const elements = Array.isArray(answer.body.elements) ? (answer.body.elements as Record<string, unknown>[]) : [];
      const found = elements.some(
        (acl) => acl.organization === organization && acl.state === 'APPROVED' && typeof acl.role === 'string' && postingRoles.has(acl.role),
      );
      if (found) return true;
      if (elements.length < aclPageSize) return false;
    }
    return false;
  }

  /** The organisation's name (Organization Lookup API), or its URN when LinkedIn gives none. */
  async function nameOf(accessToken: string, id: string, urn: string): Promise<string> {
    // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-lookup-api
    const answer = await api.call({ method: 'GET', path: `/rest/organizations/${id}`, token: accessToken });
    if (answer.status !== 200) throw linkedInFailureOf(answer, 'reading the organisation', [accessToken]);
    const name = answer.body.localizedName;
    return typeof name === 'string' && name ? name : urn;
  }

  return {
    async member(accessToken, identity) {
      if (identity === 'profile') {
        // https://learn.microsoft.com/en-us/linkedin/shared/integrations/people/profile-api (r_basicprofile)
        const answer = await api.call({ method: 'GET', path: '/v2/me', token: accessToken });
        if (answer.status !== 200) throw linkedInFailureOf(answer, 'reading the member', [accessToken]);
        const id = api.http.textField(answer, 'id', 'the member');
        const { localizedFirstName: first, localizedLastName: last } = answer.body;
        const name = [first, last].filter((part) => typeof part === 'string' && part).join(' ');
        return { accountName: name || id, accountId: `urn:li:person:${id}` };
      }
      // https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2#api-request-to-retreive-member-details
      const answer = await api.call({ method: 'GET', path: '/v2/userinfo', token: accessToken });
      if (answer.status !== 200) throw linkedInFailureOf(answer, 'reading the member', [accessToken]);
      const sub = api.http.textField(answer, 'sub', 'the member');
      const name = answer.body.name;
      return { accountName: typeof name === 'string' && name ? name : sub, accountId: `urn:li:person:${sub}` };
    },

    async authorFor({ accessToken, member, requested }) {
      if (requested === undefined || requested === member.accountId) return { ...member, author: member.accountId };
      const id = organizationUrn.exec(requested)?.[1];
      if (!id) throw new SocialRejectedError(`a LinkedIn author is the member or an organisation (urn:li:organization:<id>), not ${requested.slice(0, 100)}`);
      if (!(await mayPostFor(accessToken, requested))) {
        throw new SocialRejectedError(`${member.accountName} is not an administrator or content administrator of ${requested} on LinkedIn`);
      }
      return { accountName: await nameOf(accessToken, id, requested), accountId: requested, author: requested };
    },
  };
}
