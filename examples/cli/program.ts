export default async function ({ codemode, console, result }: AgentProgramScope) {
  const cities = ["Oslo", "London", "Tokyo"];
  const reports = await Promise.all(cities.map((location) => codemode.getWeather({ location })));
  console.log("fetched", reports.length, "reports");
  const warmest = reports.reduce((a, b) => (b.temperatureC > a.temperatureC ? b : a));
  const summary = `warmest: ${warmest.location} at ${warmest.temperatureC}°C`;
  const { words } = await codemode.countWords({ text: summary });
  result.appendText(`${summary} (${words} words)`);
}
