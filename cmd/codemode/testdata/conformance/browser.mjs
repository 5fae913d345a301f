// Stands in for the person's browser: follows the authorization URL's redirects to codemode's loopback listener.
const res = await fetch(process.argv[2]);
if (!res.ok) { console.error(`browser: ${res.status} ${await res.text()}`); process.exit(1); }
