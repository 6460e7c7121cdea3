// A webhook receiver for hitl's end-to-end test: it verifies each
// delivery with the standardwebhooks library (the one receivers use),
// checks that the same delivery with a tampered body, or re-signed with
// an old timestamp, fails verification, and answers with the next
// status of ANSWERS (comma-separated; the last one repeats). It prints
// one JSON line per event on stdout: listening (with its port), then a
// delivery per request.
import http from "node:http";
import { Webhook } from "standardwebhooks";

const secret = process.env.WEBHOOK_SECRET;
const answers = (process.env.ANSWERS || "200").split(",").map(Number);
const wh = new Webhook(secret);
let n = 0;

function verifies(body, headers) {
  try {
    wh.verify(body, headers);
    return true;
  } catch (e) {
    return false;
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = {
      "webhook-id": req.headers["webhook-id"] || "",
      "webhook-timestamp": req.headers["webhook-timestamp"] || "",
      "webhook-signature": req.headers["webhook-signature"] || "",
    };
    const tampered = body.replace('"type":"', '"type":"x');
    const old = new Date(Date.now() - 10 * 60 * 1000);
    const oldHeaders = {
      "webhook-id": headers["webhook-id"],
      "webhook-timestamp": String(Math.floor(old.getTime() / 1000)),
      "webhook-signature": wh.sign(headers["webhook-id"], old, body),
    };
    const status = answers[Math.min(n, answers.length - 1)];
    n++;
    process.stdout.write(
      JSON.stringify({
        event: "delivery",
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signatures: headers["webhook-signature"].split(" ").length,
        verified: verifies(body, headers),
        tamperedRejected: tampered !== body && !verifies(tampered, headers),
        oldRejected: !verifies(body, oldHeaders),
        status,
        body: JSON.parse(body),
      }) + "\n",
    );
    res.writeHead(status);
    res.end();
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ event: "listening", port: server.address().port }) + "\n");
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
