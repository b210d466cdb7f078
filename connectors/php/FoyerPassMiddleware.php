<?php
// PSR-15 middleware around foyer-pass.php, for Slim, Mezzio, Laminas and other PSR-15 stacks
// (psr/http-server-middleware and a PSR-17 response factory, e.g. nyholm/psr7):
//
//   $app->add(new FoyerPassMiddleware(['issuer' => ..., 'room' => ..., 'jwks_url' => ..., 'login_url' => ...],
//                                     new Nyholm\Psr7\Factory\Psr17Factory()));
//
// An admitted request reaches the handler with the attribute "foyer.pass" (visitor, jti, exp).

declare(strict_types=1);

require_once __DIR__ . '/foyer-pass.php';

use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

final class FoyerPassMiddleware implements MiddlewareInterface
{
    public function __construct(private array $config, private ResponseFactoryInterface $responses)
    {
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        $uri = $request->getUri();
        $target = $uri->getPath() . ($uri->getQuery() === '' ? '' : '?' . $uri->getQuery());
        $authorization = $request->getHeaderLine('Authorization');
        $d = foyer_decide($this->config, $target, $request->getHeaderLine('Cookie'), $authorization === '' ? null : $authorization);
        if (isset($d['pass'])) return $handler->handle($request->withAttribute('foyer.pass', $d['pass']));
        $response = $this->responses->createResponse($d['status']);
        foreach ($d['headers'] as $name => $value) $response = $response->withHeader($name, $value);
        return $response;
    }
}
