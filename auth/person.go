package auth

// Person is who principal id (speaking for slackUser, "" when none) is,
// for every rule that counts people (a quorum counts each person once,
// "another person must approve"): one person however they came in.
//
//   - A Slack user is one person on every edge: their button clicks
//     (slack:U…), a token whose slack_user they are (api:NAME), a web
//     session signed in with Sign in with Slack, or with the company's
//     identity provider under an e-mail their Slack profile has
//     (access.OIDCRoles.OIDCPrincipal): all "slack:U…".
//   - The local person of a tokenless server is one person, the machine,
//     however its clients named themselves (local, local:alice).
//   - Anyone else is their principal id (api:NAME, oidc:EMAIL).
func Person(id, slackUser string) string {
	switch {
	case slackUser != "":
		return "slack:" + slackUser
	case IsLocal(id):
		return "local"
	}
	return id
}

// Person is who p is, for every rule that counts people (Person).
func (p Principal) Person() string { return Person(p.ID, p.SlackUser) }

// SamePerson reports whether principals a and b are one person.
func SamePerson(a, b Principal) bool { return a.Person() == b.Person() }
