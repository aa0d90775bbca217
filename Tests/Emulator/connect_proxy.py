#!/usr/bin/env python3
"""A minimal HTTP CONNECT proxy for the transport's tests: it tunnels every CONNECT to
127.0.0.1 on the requested port (whatever host was asked for) and logs the request line and
any Proxy-Authorization header to stdout, one per line, after 'listening on PORT'."""
import socket, sys, threading


def pipe(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, target):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(client):
    head = b""
    while b"\r\n\r\n" not in head:
        data = client.recv(4096)
        if not data:
            return client.close()
        head += data
    lines = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    print(lines[0], flush=True)
    for line in lines[1:]:
        if line.lower().startswith("proxy-authorization:"):
            print(line, flush=True)
    method, target, _ = lines[0].split(" ", 2)
    if method != "CONNECT":
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        return client.close()
    upstream = socket.create_connection(("127.0.0.1", int(target.rsplit(":", 1)[1])))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    pipe(upstream, client)


def main():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    print("listening on %d" % server.getsockname()[1], flush=True)
    while True:
        client, _ = server.accept()
        threading.Thread(target=handle, args=(client,), daemon=True).start()


if __name__ == "__main__":
    main()
